/* Requests to reset or power off the machine, from the devices that can make
 * them (port 0x92, the reset control register 0xCF9, the 8042's pulse-reset
 * command, the Bochs "Shutdown" port). The machine decides what they mean:
 * hvemu's CLI restarts on a reset (ends the run under --no-reboot, as QEMU's
 * -no-reboot) and ends the run on a power-off, with the exit status README
 * "Exit status" gives each. */
#ifndef HVEMU_DEVICES_POWER_H
#define HVEMU_DEVICES_POWER_H

enum power_request { POWER_RESET = 1, POWER_OFF };

struct power_control {
	/* source names the device and what was written, for the report. NULL:
	 * not connected, the request is dropped. */
	void (*request)(void *opaque, enum power_request what, const char *source);
	void *opaque;
};

static inline void power_request(const struct power_control *pc, enum power_request what,
				 const char *source)
{
	if (pc && pc->request)
		pc->request(pc->opaque, what, source);
}

#endif
