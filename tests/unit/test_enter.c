/* Check suite for ENTER in 64-bit mode (emu/datamove.c op_enter), the cases a
 * 32-bit guest cannot reach (tests/guests/enter_stack.c has the others).
 * SDM Vol.2 ENTER Operation, 64-bit mode: the push size is 8 (or 2 with 66H),
 * the stack-address size 64; FrameTemp = RSP (or SP) after pushing rBP; the
 * frame pointers are copied from [RBP - i*size]. Exceptions: #SS(0) "if the
 * stack address is in a non-canonical form", #PF for the final stack location.
 * Nothing changes when ENTER faults (SDM Vol.3 6.5). */
#include "machine_fixture.h"
#include "suite_runner.h"

#include "devices/bus.h"

/* 64-bit mode through the fixture's identity map (first 1 GiB, 2 MiB pages).
 * PML4[256] also maps 0xFFFF800000000000 to physical 200000H, so a push at the
 * bottom of the upper canonical half can succeed. */
#define UPPER_PDPT 0x13000
#define UPPER_PD   0x14000
static void machine64(struct test_machine *m)
{
	machine_init(m, "skylake-lite");
	physmem_write(&m->pm, PML4 + 256 * 8, 8, UPPER_PDPT | 3);
	physmem_write(&m->pm, UPPER_PDPT, 8, UPPER_PD | 3);
	physmem_write(&m->pm, UPPER_PD, 8, 0x200000 | 0x83);
	activate(m);
	to64(m);
}

static uint64_t rd64(struct test_machine *m, uint64_t pa) { return physmem_read(&m->pm, pa, 8); }
static uint64_t rd16(struct test_machine *m, uint64_t pa) { return physmem_read(&m->pm, pa, 2); }

START_TEST(enter64_nested)
{
	struct test_machine m;
	struct cpu *c = &m.cpu;
	machine64(&m);
	c->regs[R_SP] = 0x200000;
	c->regs[R_BP] = 0x180000;
	physmem_write(&m.pm, 0x17fff8, 8, 0x1111222233334444ull);
	/* enter $0x10, $2 */
	ck_assert_int_eq(EXEC(&m, 0xc8, 0x10, 0x00, 0x02), ST_OK);
	ck_assert_uint_eq(rd64(&m, 0x1ffff8), 0x180000);                 /* push RBP */
	ck_assert_uint_eq(rd64(&m, 0x1ffff0), 0x1111222233334444ull);    /* [RBP - 8] */
	ck_assert_uint_eq(rd64(&m, 0x1fffe8), 0x1ffff8);                 /* FrameTemp */
	ck_assert_uint_eq(c->regs[R_BP], 0x1ffff8);
	ck_assert_uint_eq(c->regs[R_SP], 0x1fffe8 - 0x10);
	machine_free(&m);
}
END_TEST

/* 66H: word pushes on the 64-bit stack; FrameTemp = SP; only BP is written
 * (SDM Vol.2 ENTER: "BP := FrameTemp[15:0]"), RSP drops at 64 bits. */
START_TEST(enter64_o16)
{
	struct test_machine m;
	struct cpu *c = &m.cpu;
	machine64(&m);
	c->regs[R_SP] = 0x210000;
	c->regs[R_BP] = 0xaaaabbbbcccc1234ull;
	/* enterw $4, $1 */
	ck_assert_int_eq(EXEC(&m, 0x66, 0xc8, 0x04, 0x00, 0x01), ST_OK);
	ck_assert_uint_eq(rd16(&m, 0x20fffe), 0x1234);
	ck_assert_uint_eq(rd16(&m, 0x20fffc), 0xfffe);
	ck_assert_uint_eq(c->regs[R_BP], 0xaaaabbbbccccfffeull);
	ck_assert_uint_eq(c->regs[R_SP], 0x20fff8);
	machine_free(&m);
}
END_TEST

/* The push at FFFF800000000008 is fine, the final RSP FFFF7FFFFFFFFFF0 is not
 * canonical: #SS(0), RSP, RBP and the push slot unchanged. */
START_TEST(enter64_noncanonical_final_rsp)
{
	struct test_machine m;
	struct cpu *c = &m.cpu;
	machine64(&m);
	c->regs[R_SP] = 0xffff800000000010ull;
	c->regs[R_BP] = 0x5555;
	physmem_write(&m.pm, 0x200008, 8, 0x6666666666666666ull);
	/* enter $0x20, $0 */
	assert_fault(&m, EXEC(&m, 0xc8, 0x20, 0x00, 0x00), EXC_SS, 0);
	ck_assert_uint_eq(c->regs[R_SP], 0xffff800000000010ull);
	ck_assert_uint_eq(c->regs[R_BP], 0x5555);
	ck_assert_uint_eq(rd64(&m, 0x200008), 0x6666666666666666ull);
	machine_free(&m);
}
END_TEST

/* RSP = 10H: the push at 8 is fine, the final RSP wraps to FFFFFFFFFFFFFFE8
 * (canonical, not mapped): #PF(W), CR2 = the final RSP, nothing written. */
START_TEST(enter64_final_rsp_not_present)
{
	struct test_machine m;
	struct cpu *c = &m.cpu;
	machine64(&m);
	c->regs[R_SP] = 0x10;
	c->regs[R_BP] = 0x7777;
	physmem_write(&m.pm, 0x8, 8, 0x6666666666666666ull);
	assert_fault(&m, EXEC(&m, 0xc8, 0x20, 0x00, 0x00), EXC_PF, 2);
	ck_assert_uint_eq(c->event.cr2, 0xffffffffffffffe8ull);
	ck_assert_uint_eq(c->regs[R_SP], 0x10);
	ck_assert_uint_eq(c->regs[R_BP], 0x7777);
	ck_assert_uint_eq(rd64(&m, 0x8), 0x6666666666666666ull);
	machine_free(&m);
}
END_TEST

static Suite *enter_suite(void)
{
	Suite *s = suite_create("enter");
	TCase *t = tcase_create("64-bit");
	tcase_add_test(t, enter64_nested);
	tcase_add_test(t, enter64_o16);
	tcase_add_test(t, enter64_noncanonical_final_rsp);
	tcase_add_test(t, enter64_final_rsp_not_present);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return run_suite(enter_suite());
}
