/* client.h — a minimal HTTP/1.1 client for the server's tests and benchmark (not for outside
 * servers): one request per connection ("Connection: close") to 127.0.0.1, the whole answer read
 * until the server closes.  The server itself uses libmicrohttpd; this only talks to it. */
#ifndef SV_CLIENT_H
#define SV_CLIENT_H

#include <stddef.h>

typedef struct {
    int status;        /* 0 when no answer came */
    char *raw;         /* the whole answer (malloc'd, NUL-terminated) */
    char *body;        /* inside raw: after the headers */
} sv_reply;

/* A socket connected to 127.0.0.1:port, or -1. */
int sv_client_connect(int port);
/* Send all of data (stops quietly when the server has closed). */
void sv_client_send_all(int fd, const char *data, size_t len);
/* Send a request with a JSON body (may be NULL). */
void sv_client_send(int fd, const char *method, const char *path, const char *body);
/* Read the answer until the server closes, and close fd. */
sv_reply sv_client_read(int fd);
/* Connect, send, read.  status 0 when the connection failed. */
sv_reply sv_client_request(int port, const char *method, const char *path, const char *body);
void sv_reply_free(sv_reply *r);

#endif
