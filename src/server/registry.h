/* registry.h — the server's tables of live objects (games, reviews) by id: one lock, reference
 * counts, a limit on how many, and expiry of the idle ones.  An object embeds an sv_entry as its
 * FIRST member, so that an entry and its object are the same pointer.
 *
 * Invariants: an entry is in exactly one registry from sv_registry_add until it is freed; it is
 * freed (by the registry's free function, outside the lock) only when no reference is held; a
 * request holds a reference from sv_registry_get to sv_registry_put. */
#ifndef SV_REGISTRY_H
#define SV_REGISTRY_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct sv_entry {
    char id[16];                    /* 8 hex digits */
    int refs;                       /* references held by requests (the registry's lock) */
    double last_used;               /* monotonic seconds of the last get or put */
    atomic_int working;             /* its own thread is at work (a review running): not idle,
                                     * whatever last_used says; idleness counts from its end */
    struct sv_entry *next;
} sv_entry;

typedef struct sv_registry {
    pthread_mutex_t lock;
    sv_entry *head;
    int count, max;
    uint64_t rng;                   /* for ids */
    double idle_s;                  /* an entry unused this long, with no reference, expires */
    void (*free_entry)(sv_entry *);
} sv_registry;

void sv_registry_init(sv_registry *r, int max, double idle_s, void (*free_entry)(sv_entry *));
/* Free every entry (no request may hold one any more). */
void sv_registry_destroy(sv_registry *r);
int sv_registry_count(sv_registry *r);
/* Give e a fresh id (before sv_registry_add). */
void sv_registry_new_id(sv_registry *r, sv_entry *e);
/* Add e; false when the registry is full (e is not added). */
bool sv_registry_add(sv_registry *r, sv_entry *e);
/* The entry with this id, with a reference taken; NULL when there is none. */
sv_entry *sv_registry_get(sv_registry *r, const char *id);
void sv_registry_put(sv_registry *r, sv_entry *e);
/* Free the idle entries (unused for idle_s, no reference, not working); returns how many. */
int sv_registry_expire(sv_registry *r);
/* Remove and free the entry: 200, 404 (no such id) or 409 (a request holds it). */
int sv_registry_delete(sv_registry *r, const char *id);

#endif
