/* The 82441FX's PAM and SMRAM registers; see devices/i440fx.h. */
#include "devices/i440fx.h"

/* 82441FX datasheet 3.2.23: once D_LCK is set, D_OPEN reads 0 and D_OPEN,
 * G_SMRAME and D_LCK no longer change; D_CLS stays writable. */
static void smram_written(void *ctx, unsigned off, unsigned size)
{
	struct pci_function *f = ctx;
	if (off > I440FX_SMRAM || off + size <= I440FX_SMRAM)
		return;
	if (f->config[I440FX_SMRAM] & SMRAM_D_LCK) {
		f->config[I440FX_SMRAM] &= (uint8_t)~SMRAM_D_OPEN;
		f->wmask[I440FX_SMRAM] = SMRAM_D_CLS;
	}
}

void i440fx_chipset_init(struct pci_function *f)
{
	/* 3.2.18: PAM0-PAM6 reset to 00h; PAM0's bits 3:0 are reserved, and in
	 * every field bits 3:2 are. */
	for (unsigned r = I440FX_PAM0; r <= I440FX_PAM6; r++) {
		f->config[r] = 0;
		f->wmask[r] = r == I440FX_PAM0 ? 0x30 : 0x33;
	}
	/* 3.2.23: SMRAM resets to 02h, C_BASE_SEG read-only. */
	f->config[I440FX_SMRAM] = SMRAM_C_BASE_SEG;
	f->wmask[I440FX_SMRAM] = SMRAM_D_OPEN | SMRAM_D_CLS | SMRAM_D_LCK | SMRAM_G_SMRAME;
	f->written = smram_written;
	f->written_ctx = f;
}

unsigned i440fx_pam_attr(const uint8_t *config, uint32_t pa)
{
	if (pa < PAM_AREA_START || pa >= PAM_AREA_END)
		return PAM_RE | PAM_WE;
	if (pa >= 0xf0000u)                       /* PAM0 bits 5:4: F0000h-FFFFFh */
		return (config[I440FX_PAM0] >> 4) & 3u;
	/* PAM1 at C0000h, then a register per 32 KiB, a field per 16 KiB. */
	unsigned seg = (pa - PAM_AREA_START) >> 14;   /* 0..11 */
	uint8_t reg = config[I440FX_PAM0 + 1 + seg / 2];
	return (seg & 1 ? reg >> 4 : reg) & 3u;
}
