#ifndef KF_GTK_SHIMS_H
#define KF_GTK_SHIMS_H
/*
 * What Swift cannot import from GLib and GTK: function-like macros. Nothing else belongs here.
 */
#include <gtk/gtk.h>

/* G_SOURCE_CONTINUE and G_SOURCE_REMOVE: what a GSourceFunc returns to stay or go. */
static const gboolean kf_g_source_continue = G_SOURCE_CONTINUE;
static const gboolean kf_g_source_remove = G_SOURCE_REMOVE;

/*
 * g_signal_connect for a handler of the form `void (*)(instance, user_data)` (map, unmap, destroy,
 * clicked, ...). The macro casts the handler to GCallback; doing the cast here keeps Swift free of
 * unsafeBitCast. `destroy` runs when the handler is disconnected or the instance is finalised.
 */
static inline gulong kf_g_signal_connect_plain(gpointer instance, const gchar *signal,
                                               void (*handler)(gpointer instance, gpointer user_data),
                                               gpointer user_data, GClosureNotify destroy) {
    return g_signal_connect_data(instance, signal, G_CALLBACK(handler), user_data, destroy, 0);
}

/* GTK's checked casts (GTK_WIDGET(), GTK_WINDOW(), ...), which warn on a wrong type. */
static inline GtkWidget *kf_gtk_widget(gpointer instance) { return GTK_WIDGET(instance); }
static inline GtkWindow *kf_gtk_window(gpointer instance) { return GTK_WINDOW(instance); }
static inline GtkPicture *kf_gtk_picture(gpointer instance) { return GTK_PICTURE(instance); }
static inline GtkOverlay *kf_gtk_overlay(gpointer instance) { return GTK_OVERLAY(instance); }
static inline GtkSpinner *kf_gtk_spinner(gpointer instance) { return GTK_SPINNER(instance); }
static inline GdkPaintable *kf_gdk_paintable(gpointer instance) { return GDK_PAINTABLE(instance); }
static inline GdkTexture *kf_gdk_texture(gpointer instance) { return GDK_TEXTURE(instance); }
static inline GdkSnapshot *kf_gdk_snapshot(gpointer instance) { return GDK_SNAPSHOT(instance); }
static inline GObject *kf_g_object(gpointer instance) { return G_OBJECT(instance); }

#endif
