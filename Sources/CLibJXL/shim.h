#ifndef CLIBJXL_SHIM_H
#define CLIBJXL_SHIM_H
#include <jxl/decode.h>
#include <jxl/encode.h>
#include <jxl/resizable_parallel_runner.h>
#include <jxl/thread_parallel_runner.h>
#endif
