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

/* g_signal_connect for `void (*)(instance, pointer argument, user_data)` (a list item factory's
 * setup/bind/unbind, a GSimpleAction's activate). */
static inline gulong kf_g_signal_connect_pointer(gpointer instance, const gchar *signal,
                                                 void (*handler)(gpointer instance, gpointer argument, gpointer user_data),
                                                 gpointer user_data, GClosureNotify destroy) {
    return g_signal_connect_data(instance, signal, G_CALLBACK(handler), user_data, destroy, 0);
}

/* g_signal_connect for `void (*)(instance, guint argument, user_data)` (a list view's activate). */
static inline gulong kf_g_signal_connect_uint(gpointer instance, const gchar *signal,
                                              void (*handler)(gpointer instance, guint argument, gpointer user_data),
                                              gpointer user_data, GClosureNotify destroy) {
    return g_signal_connect_data(instance, signal, G_CALLBACK(handler), user_data, destroy, 0);
}

/* Whether a renderer is GSK's cairo renderer (GSK_IS_CAIRO_RENDERER). */
static inline gboolean kf_gsk_is_cairo_renderer(gpointer renderer) { return GSK_IS_CAIRO_RENDERER(renderer); }

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
static inline GtkListItem *kf_gtk_list_item(gpointer instance) { return GTK_LIST_ITEM(instance); }
static inline GtkGridView *kf_gtk_grid_view(gpointer instance) { return GTK_GRID_VIEW(instance); }
static inline GtkScrolledWindow *kf_gtk_scrolled_window(gpointer instance) { return GTK_SCROLLED_WINDOW(instance); }
static inline GtkBox *kf_gtk_box(gpointer instance) { return GTK_BOX(instance); }
static inline GtkButton *kf_gtk_button(gpointer instance) { return GTK_BUTTON(instance); }
static inline GtkMenuButton *kf_gtk_menu_button(gpointer instance) { return GTK_MENU_BUTTON(instance); }
static inline GtkHeaderBar *kf_gtk_header_bar(gpointer instance) { return GTK_HEADER_BAR(instance); }
static inline GtkLabel *kf_gtk_label(gpointer instance) { return GTK_LABEL(instance); }
static inline GListModel *kf_g_list_model(gpointer instance) { return G_LIST_MODEL(instance); }
static inline GtkSelectionModel *kf_gtk_selection_model(gpointer instance) { return GTK_SELECTION_MODEL(instance); }
static inline GtkListItemFactory *kf_gtk_list_item_factory(gpointer instance) { return GTK_LIST_ITEM_FACTORY(instance); }
static inline GActionMap *kf_g_action_map(gpointer instance) { return G_ACTION_MAP(instance); }
static inline GAction *kf_g_action(gpointer instance) { return G_ACTION(instance); }
static inline GActionGroup *kf_g_action_group(gpointer instance) { return G_ACTION_GROUP(instance); }
static inline GMenuModel *kf_g_menu_model(gpointer instance) { return G_MENU_MODEL(instance); }

#endif
