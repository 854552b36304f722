#ifndef KINGFISHER_FUZZ_DRIVER_H
#define KINGFISHER_FUZZ_DRIVER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver (in the runtime -sanitize=fuzzer links): parses the command line and fuzzes
/// `callback`. Declared here because Swift cannot declare a C function itself.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
