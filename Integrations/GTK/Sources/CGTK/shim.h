#ifndef CGTK_SHIM_H
#define CGTK_SHIM_H
#include <gtk/gtk.h>
/* g_unix_fd_add: the GLib source that wakes the GTK thread when the main dispatch queue has work. */
#include <glib-unix.h>
#endif
