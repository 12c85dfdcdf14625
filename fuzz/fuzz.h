/* The libFuzzer entry point every target in fuzz/ defines. Built with
 * -Dfuzzing_engine=libfuzzer the targets link libFuzzer's main; with `none`
 * they link fuzz_main.c, which replays files or a fixed-seed random corpus. */
#ifndef HVEMU_FUZZ_FUZZ_H
#define HVEMU_FUZZ_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* Run one input. Returns 0; a violated property aborts (the fuzzer's crash). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
