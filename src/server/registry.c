/* registry.c — tables of live objects by id (see registry.h). */
#include "registry.h"
#include "mcts/clock.h"
#include "mcts/rand.h"
#include <stdio.h>
#include <string.h>

void sv_registry_init(sv_registry *r, int max, double idle_s, void (*free_entry)(sv_entry *)) {
    memset(r, 0, sizeof *r);
    pthread_mutex_init(&r->lock, NULL);
    r->max = max;
    r->idle_s = idle_s;
    r->free_entry = free_entry;
    r->rng = mcts_seed((uint64_t)(mcts_now_s() * 1e6) ^ (uint64_t)(uintptr_t)r);
}

void sv_registry_destroy(sv_registry *r) {
    for (sv_entry *e = r->head, *n; e; e = n) { n = e->next; r->free_entry(e); }
    r->head = NULL;
    r->count = 0;
    pthread_mutex_destroy(&r->lock);
}

int sv_registry_count(sv_registry *r) {
    pthread_mutex_lock(&r->lock);
    int n = r->count;
    pthread_mutex_unlock(&r->lock);
    return n;
}

void sv_registry_new_id(sv_registry *r, sv_entry *e) {
    pthread_mutex_lock(&r->lock);
    uint64_t v = mcts_seed(r->rng++);
    pthread_mutex_unlock(&r->lock);
    snprintf(e->id, sizeof e->id, "%08llx", (unsigned long long)(v & 0xFFFFFFFFull));
}

bool sv_registry_add(sv_registry *r, sv_entry *e) {
    pthread_mutex_lock(&r->lock);
    bool ok = r->count < r->max;
    if (ok) {
        e->refs = 0;
        e->last_used = mcts_now_s();
        e->next = r->head;
        r->head = e;
        r->count++;
    }
    pthread_mutex_unlock(&r->lock);
    return ok;
}

sv_entry *sv_registry_get(sv_registry *r, const char *id) {
    pthread_mutex_lock(&r->lock);
    sv_entry *e = r->head;
    while (e && strcmp(e->id, id) != 0) e = e->next;
    if (e) { e->refs++; e->last_used = mcts_now_s(); }
    pthread_mutex_unlock(&r->lock);
    return e;
}

void sv_registry_put(sv_registry *r, sv_entry *e) {
    pthread_mutex_lock(&r->lock);
    e->refs--;
    e->last_used = mcts_now_s();
    pthread_mutex_unlock(&r->lock);
}

int sv_registry_expire(sv_registry *r) {
    double now = mcts_now_s();
    sv_entry *dead = NULL;
    pthread_mutex_lock(&r->lock);
    for (sv_entry **pp = &r->head; *pp;) {
        sv_entry *e = *pp;
        if (atomic_load(&e->working)) e->last_used = now;    /* idle from when its work ends */
        if (e->refs == 0 && now - e->last_used > r->idle_s) { *pp = e->next; e->next = dead; dead = e; r->count--; }
        else pp = &e->next;
    }
    pthread_mutex_unlock(&r->lock);
    int n = 0;
    for (sv_entry *e = dead, *nx; e; e = nx, n++) { nx = e->next; r->free_entry(e); }
    return n;
}

int sv_registry_delete(sv_registry *r, const char *id) {
    pthread_mutex_lock(&r->lock);
    sv_entry **pp = &r->head;
    while (*pp && strcmp((*pp)->id, id) != 0) pp = &(*pp)->next;
    sv_entry *e = *pp;
    int status = !e ? 404 : e->refs ? 409 : 200;
    if (status == 200) { *pp = e->next; r->count--; }
    pthread_mutex_unlock(&r->lock);
    if (status == 200) r->free_entry(e);
    return status;
}
