#ifndef CLIBAVIF_SHIM_H
#define CLIBAVIF_SHIM_H
#include <avif/avif.h>
#endif
