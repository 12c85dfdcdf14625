/* A small KVM user: run inside Linux under hvemu (tests/real/kvm_boot.sh), it
 * creates a VM through /dev/kvm (Documentation/virt/kvm/api.rst) and runs
 * three L2 guests, printing every exit it gets:
 *   real mode: OUT 10h of 42h, IN from 12h (this program answers 5Ah) echoed
 *     to port 13h, then HLT;
 *   64-bit mode (4-level paging, a 2 MiB page, EFER.LME/LMA): OUT 11h of a
 *     doubleword, a 64-bit register value checked after HLT, and a write to
 *     an unbacked address (KVM_EXIT_MMIO), then HLT;
 * and says HVEMU-KVM-OK when each exit is the one expected. Statically
 * linked, so the initramfs needs nothing else. Exit status: 0 all as
 * expected, 1 an unexpected exit, 77 no /dev/kvm. */
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#define MEM_SIZE (4u << 20)
#define MMIO_ADDR 0x10000000u      /* no memory slot: an MMIO exit */

static int failures;

static const char *exit_name(unsigned r)
{
	static const char *const names[] = {
		[KVM_EXIT_UNKNOWN] = "UNKNOWN", [KVM_EXIT_EXCEPTION] = "EXCEPTION", [KVM_EXIT_IO] = "IO",
		[KVM_EXIT_HYPERCALL] = "HYPERCALL", [KVM_EXIT_DEBUG] = "DEBUG", [KVM_EXIT_HLT] = "HLT",
		[KVM_EXIT_MMIO] = "MMIO", [KVM_EXIT_IRQ_WINDOW_OPEN] = "IRQ_WINDOW_OPEN",
		[KVM_EXIT_SHUTDOWN] = "SHUTDOWN", [KVM_EXIT_FAIL_ENTRY] = "FAIL_ENTRY", [KVM_EXIT_INTR] = "INTR",
		[KVM_EXIT_INTERNAL_ERROR] = "INTERNAL_ERROR",
	};
	return r < sizeof(names) / sizeof(names[0]) && names[r] ? names[r] : "?";
}

static void die(const char *what)
{
	printf("kvm_vm: %s: %s\n", what, strerror(errno));
	exit(1);
}

struct vm {
	int vm, vcpu;
	uint8_t *mem;
	struct kvm_run *run;
};

static void vm_create(int kvm, struct vm *v)
{
	v->vm = ioctl(kvm, KVM_CREATE_VM, 0);
	if (v->vm < 0)
		die("KVM_CREATE_VM");
	v->mem = mmap(NULL, MEM_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (v->mem == MAP_FAILED)
		die("mmap guest memory");
	struct kvm_userspace_memory_region region = {
		.slot = 0, .guest_phys_addr = 0, .memory_size = MEM_SIZE, .userspace_addr = (uintptr_t)v->mem,
	};
	if (ioctl(v->vm, KVM_SET_USER_MEMORY_REGION, &region) < 0)
		die("KVM_SET_USER_MEMORY_REGION");
	/* Intel without unrestricted guest (ept=0) runs real mode in virtual-8086
	 * mode and needs three pages for its TSS; harmless on AMD. Below 4 GiB,
	 * clear of this VM's memory, where QEMU puts it too. */
	if (ioctl(v->vm, KVM_SET_TSS_ADDR, 0xfffbd000ul) < 0)
		die("KVM_SET_TSS_ADDR");
	v->vcpu = ioctl(v->vm, KVM_CREATE_VCPU, 0);
	if (v->vcpu < 0)
		die("KVM_CREATE_VCPU");
	int size = ioctl(kvm, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (size < (int)sizeof(struct kvm_run))
		die("KVM_GET_VCPU_MMAP_SIZE");
	v->run = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, v->vcpu, 0);
	if (v->run == MAP_FAILED)
		die("mmap kvm_run");
}

static void vm_destroy(struct vm *v)
{
	close(v->vcpu);
	close(v->vm);
	munmap(v->mem, MEM_SIZE);
}

/* One KVM_RUN; prints the exit and returns its reason. */
static unsigned step(struct vm *v, const char *who)
{
	if (ioctl(v->vcpu, KVM_RUN, 0) < 0)
		die("KVM_RUN");
	struct kvm_run *r = v->run;
	printf("kvm_vm: %s: exit %s", who, exit_name(r->exit_reason));
	if (r->exit_reason == KVM_EXIT_IO) {
		uint64_t data = 0;
		memcpy(&data, (uint8_t *)r + r->io.data_offset, r->io.size);
		printf(" %s port 0x%x size %u data 0x%llx", r->io.direction == KVM_EXIT_IO_OUT ? "out" : "in",
		       r->io.port, r->io.size, (unsigned long long)data);
	} else if (r->exit_reason == KVM_EXIT_MMIO) {
		uint64_t data = 0;
		memcpy(&data, r->mmio.data, r->mmio.len);
		printf(" %s 0x%llx len %u data 0x%llx", r->mmio.is_write ? "write" : "read",
		       (unsigned long long)r->mmio.phys_addr, r->mmio.len, (unsigned long long)data);
	} else if (r->exit_reason == KVM_EXIT_FAIL_ENTRY) {
		printf(" hardware_entry_failure_reason 0x%llx",
		       (unsigned long long)r->fail_entry.hardware_entry_failure_reason);
	} else if (r->exit_reason == KVM_EXIT_INTERNAL_ERROR) {
		printf(" suberror %u", r->internal.suberror);
	}
	printf("\n");
	return r->exit_reason;
}

static void expect(int ok, const char *what)
{
	if (!ok) {
		printf("kvm_vm: FAIL: %s\n", what);
		failures++;
	}
}

static void expect_io(struct vm *v, const char *who, int dir, unsigned port, unsigned size, uint64_t data)
{
	struct kvm_run *r = v->run;
	if (step(v, who) != KVM_EXIT_IO || r->io.direction != dir || r->io.port != port || r->io.size != size) {
		expect(0, "the I/O exit expected");
		return;
	}
	uint8_t *p = (uint8_t *)r + r->io.data_offset;
	if (dir == KVM_EXIT_IO_IN) {
		memcpy(p, &data, size);                 /* this program is the device */
		return;
	}
	uint64_t got = 0;
	memcpy(&got, p, size);
	expect(got == data, "the value written");
}

/* Real mode at 0000:1000. */
static void real_mode(int kvm)
{
	static const uint8_t code[] = {
		0xb0, 0x42,             /* mov al, 42h */
		0xe6, 0x10,             /* out 10h, al */
		0xe4, 0x12,             /* in al, 12h */
		0xe6, 0x13,             /* out 13h, al */
		0xf4,                   /* hlt */
	};
	struct vm v;
	vm_create(kvm, &v);
	memcpy(v.mem + 0x1000, code, sizeof(code));
	struct kvm_sregs s;
	if (ioctl(v.vcpu, KVM_GET_SREGS, &s) < 0)
		die("KVM_GET_SREGS");
	s.cs.base = 0;
	s.cs.selector = 0;
	if (ioctl(v.vcpu, KVM_SET_SREGS, &s) < 0)
		die("KVM_SET_SREGS");
	struct kvm_regs regs = { .rip = 0x1000, .rflags = 2, .rsp = 0x800 };
	if (ioctl(v.vcpu, KVM_SET_REGS, &regs) < 0)
		die("KVM_SET_REGS");
	expect_io(&v, "real mode", KVM_EXIT_IO_OUT, 0x10, 1, 0x42);
	expect_io(&v, "real mode", KVM_EXIT_IO_IN, 0x12, 1, 0x5a);
	expect_io(&v, "real mode", KVM_EXIT_IO_OUT, 0x13, 1, 0x5a);
	expect(step(&v, "real mode") == KVM_EXIT_HLT, "HLT");
	if (ioctl(v.vcpu, KVM_GET_REGS, &regs) < 0)
		die("KVM_GET_REGS");
	expect(regs.rip == 0x1000 + sizeof(code), "RIP after the HLT");
	vm_destroy(&v);
}

/* 64-bit mode: PML4 at 2000h, PDPT at 3000h, PD at 4000h mapping the first
 * 2 MiB and the 2 MiB at MMIO_ADDR (SDM Vol.3 4.5), code at 5000h. */
static void long_mode(int kvm)
{
	static const uint8_t code[] = {
		0xb8, 0xef, 0xbe, 0xad, 0xde,                         /* mov eax, 0DEADBEEFh */
		0xe7, 0x11,                                           /* out 11h, eax */
		0x48, 0xb9, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, /* mov rcx, 1122334455667788h */
		0x48, 0xc7, 0xc2, 0x00, 0x00, 0x00, 0x10,             /* mov rdx, 10000000h */
		0xc7, 0x02, 0x78, 0x56, 0x34, 0x12,                   /* mov dword [rdx], 12345678h */
		0xf4,                                                 /* hlt */
	};
	struct vm v;
	vm_create(kvm, &v);
	uint64_t *pml4 = (uint64_t *)(v.mem + 0x2000), *pdpt = (uint64_t *)(v.mem + 0x3000);
	uint64_t *pd = (uint64_t *)(v.mem + 0x4000);
	pml4[0] = 0x3000 | 3;                   /* present, writable */
	pdpt[0] = 0x4000 | 3;
	pd[0] = 0 | 0x83;                       /* 2 MiB page, writable, present */
	pd[MMIO_ADDR >> 21] = MMIO_ADDR | 0x83; /* mapped, but no memory slot behind it */
	memcpy(v.mem + 0x5000, code, sizeof(code));
	struct kvm_sregs s;
	if (ioctl(v.vcpu, KVM_GET_SREGS, &s) < 0)
		die("KVM_GET_SREGS");
	struct kvm_segment cs = { .base = 0, .limit = 0xffffffff, .selector = 8, .type = 11, .present = 1,
				  .dpl = 0, .db = 0, .s = 1, .l = 1, .g = 1 };
	struct kvm_segment ds = { .base = 0, .limit = 0xffffffff, .selector = 16, .type = 3, .present = 1,
				  .dpl = 0, .db = 1, .s = 1, .l = 0, .g = 1 };
	s.cs = cs;
	s.ds = s.es = s.fs = s.gs = s.ss = ds;
	s.cr3 = 0x2000;
	s.cr4 = 1u << 5;                        /* PAE */
	s.cr0 = 0x80000011;                     /* PG, ET, PE */
	s.efer = 0x500;                         /* LMA, LME */
	if (ioctl(v.vcpu, KVM_SET_SREGS, &s) < 0)
		die("KVM_SET_SREGS (64-bit)");
	struct kvm_regs regs = { .rip = 0x5000, .rflags = 2, .rsp = 0x1ff000 };
	if (ioctl(v.vcpu, KVM_SET_REGS, &regs) < 0)
		die("KVM_SET_REGS");
	expect_io(&v, "64-bit", KVM_EXIT_IO_OUT, 0x11, 4, 0xdeadbeef);
	struct kvm_run *r = v.run;
	unsigned reason = step(&v, "64-bit");
	expect(reason == KVM_EXIT_MMIO && r->mmio.is_write && r->mmio.phys_addr == MMIO_ADDR && r->mmio.len == 4,
	       "the MMIO write exit");
	expect(step(&v, "64-bit") == KVM_EXIT_HLT, "HLT");
	if (ioctl(v.vcpu, KVM_GET_REGS, &regs) < 0)
		die("KVM_GET_REGS");
	expect(regs.rcx == 0x1122334455667788ull, "RCX as the guest set it");
	expect(regs.rip == 0x5000 + sizeof(code), "RIP after the HLT");
	vm_destroy(&v);
}

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	int kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (kvm < 0) {
		printf("kvm_vm: no /dev/kvm: %s\n", strerror(errno));
		return 77;
	}
	int api = ioctl(kvm, KVM_GET_API_VERSION, 0);
	printf("kvm_vm: KVM API version %d\n", api);
	if (api != KVM_API_VERSION)
		return 1;
	real_mode(kvm);
	long_mode(kvm);
	if (failures) {
		printf("kvm_vm: %d unexpected\n", failures);
		return 1;
	}
	printf("HVEMU-KVM-OK\n");
	return 0;
}
