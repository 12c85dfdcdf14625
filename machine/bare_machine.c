/* The bare machine (machine/bare_machine.h). */
#include "machine/bare_machine.h"

#include <string.h>

void machine_ram_written(void *cpu, uint64_t pa, unsigned size)
{
	cpu_notify_phys_write(cpu, pa, size);
}

bool bare_machine_init(struct bare_machine *m, const struct cpu_model *model, uint64_t ram_size)
{
	memset(m, 0, sizeof(*m));
	if (!physmem_init(&m->pm, ram_size))
		return false;
	iobus_init(&m->io);
	cpu_init(&m->cpu, model, &m->pm, &m->io);
	return true;
}

void bare_machine_destroy(struct bare_machine *m)
{
	m->pm.on_ram_write = NULL;
	cpu_destroy(&m->cpu);
	physmem_destroy(&m->pm);
}

void bare_machine_watch_stores(struct bare_machine *m, bool on)
{
	m->pm.on_ram_write = on ? machine_ram_written : NULL;
	m->pm.on_ram_write_opaque = on ? &m->cpu : NULL;
}
