/* Interrupt messages between APICs (see apic_bus.h). */
#include <stddef.h>

#include "devices/apic_bus.h"
#include "devices/lapic.h"

/* Does message m, sent by sender, go to l? The shorthands (SDM Vol.3 10.6.1)
 * name the sender, everyone, or everyone else; otherwise the destination
 * field decides (lapic_matches). */
static bool addressed(const struct apic_msg *m, const struct lapic *l, const struct lapic *sender)
{
	switch (m->shorthand) {
	case APIC_DEST_SELF:         return l == sender;
	case APIC_DEST_ALL:          return l->mode != LAPIC_DISABLED;
	case APIC_DEST_ALL_BUT_SELF: return l != sender && l->mode != LAPIC_DISABLED;
	default:                     return lapic_matches(l, m);
	}
}

unsigned apic_bus_send(struct apic_bus *bus, const struct apic_msg *m, struct lapic *sender)
{
	if (!bus)
		return sender && m->shorthand == APIC_DEST_SELF ? lapic_accept(sender, m) : 0;
	if (m->delivery == APIC_DM_LOWEST) {
		/* SDM 10.6.2.4: lowest-priority delivery goes to one processor of
		 * the destination set, the one with the lowest priority; the SDM
		 * leaves the arbitration to the platform: hvemu takes the lowest
		 * PPR, and the lowest APIC ID among equals, so runs repeat; an APIC
		 * that is software-disabled takes no fixed interrupt (10.4.7.2) and
		 * is passed over. */
		struct lapic *best = NULL;
		for (unsigned i = 0; i < bus->n; i++) {
			struct lapic *l = bus->lapic[i];
			if (addressed(m, l, sender) && (l->svr & LAPIC_SVR_ENABLE) &&
			    (!best || lapic_ppr(l) < lapic_ppr(best)))
				best = l;
		}
		return best ? lapic_accept(best, m) : 0;
	}
	unsigned accepted = 0;
	for (unsigned i = 0; i < bus->n; i++) {
		struct lapic *l = bus->lapic[i];
		if (addressed(m, l, sender))
			accepted += lapic_accept(l, m);
	}
	return accepted;
}

void apic_bus_eoi(struct apic_bus *bus, uint8_t vector)
{
	if (bus && bus->eoi)
		bus->eoi(bus->eoi_opaque, vector);
}
