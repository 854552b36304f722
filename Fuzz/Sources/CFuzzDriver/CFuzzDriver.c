// Only the header matters: LLVMFuzzerRunDriver comes from the fuzzer runtime at link time.
#include "CFuzzDriver.h"
