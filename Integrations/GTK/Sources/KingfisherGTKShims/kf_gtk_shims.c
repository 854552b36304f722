/* Everything in this target is a static inline function in include/kf_gtk_shims.h. */
#include "kf_gtk_shims.h"
