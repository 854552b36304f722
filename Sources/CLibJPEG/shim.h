#ifndef CLIBJPEG_SHIM_H
#define CLIBJPEG_SHIM_H
#include <stddef.h>
#include <stdio.h>
#include <jpeglib.h>
#endif
