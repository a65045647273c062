/* theme.h — picture options and the two colour themes (light and dark). */
#ifndef RD_THEME_H
#define RD_THEME_H

#include "render/raster.h"

/* What the user chose for a picture. */
typedef struct {
    int width;            /* picture width in pixels; for a sequence sheet the width of each panel
                             (0 = the default of each picture kind) */
    bool dark;            /* dark theme */
    bool coords;          /* coordinate labels around the board */
    int columns;          /* sequence sheets: panels per row (0 = automatic) */
} rd_style;

/* The colours of a theme. */
typedef struct {
    rd_rgb bg;            /* picture background (a table) */
    rd_rgb sheet;         /* sequence sheet background around the panels */
    rd_rgb panel;         /* sequence panel background */
    rd_rgb text, text_dim, label;
    rd_rgb ring;          /* rings */
    rd_rgb shadow;        /* drop shadows */
    float shadow_alpha;
    rd_rgb marble[3];     /* white, grey, black */
    float marble_spec[3]; /* specular strength per colour */
    rd_rgb marble_edge[3];/* outline of each colour: sets it off from the background and from the
                             other colours at every size (white on a light table, black on a dark) */
    rd_rgb slot;          /* empty slots in the capture trays */
    rd_rgb accent;        /* the last move */
    rd_rgb hint;          /* the search's preferred move */
    rd_rgb halo;          /* outline around arrows and labels */
    rd_rgb heat[5];       /* heat-map colour ramp, low to high */
    rd_rgb heat_none;     /* a cell the search never tried */
} rd_theme;

/* Defaults: width 0, light theme, coordinates on, automatic columns. */
void rd_style_default(rd_style *s);
/* The theme a style asks for. */
const rd_theme *rd_theme_of(const rd_style *s);
/* The heat-map colour at t in [0, 1]. */
rd_rgb rd_heat_colour(const rd_theme *t, float v);

#endif
