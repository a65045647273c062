/* client.c — a minimal HTTP/1.1 client for tests and benchmarks (see client.h). */
#include "client.h"
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int sv_client_connect(int port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return -1;
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) { close(fd); return -1; }
    return fd;
}

void sv_client_send_all(int fd, const char *data, size_t len) {
    while (len) {
        ssize_t n = send(fd, data, len, MSG_NOSIGNAL);
        if (n <= 0) return;
        data += n;
        len -= (size_t)n;
    }
}

void sv_client_send(int fd, const char *method, const char *path, const char *body) {
    char head[1024];
    size_t blen = body ? strlen(body) : 0;
    int n = snprintf(head, sizeof head, "%s %s HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
                     "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n", method, path, blen);
    sv_client_send_all(fd, head, (size_t)n);
    if (blen) sv_client_send_all(fd, body, blen);
}

sv_reply sv_client_read(int fd) {
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    sv_reply r = { 0, NULL, NULL };
    if (!buf) { close(fd); return r; }
    for (;;) {
        if (len + 4096 > cap) {
            char *bigger = realloc(buf, cap * 2);
            if (!bigger) break;
            buf = bigger;
            cap *= 2;
        }
        ssize_t n = recv(fd, buf + len, cap - len - 1, 0);
        if (n <= 0) break;
        len += (size_t)n;
    }
    buf[len] = 0;
    close(fd);
    r.raw = buf;
    sscanf(buf, "HTTP/1.%*d %d", &r.status);
    char *sep = strstr(buf, "\r\n\r\n");
    r.body = sep ? sep + 4 : buf + len;
    return r;
}

sv_reply sv_client_request(int port, const char *method, const char *path, const char *body) {
    int fd = sv_client_connect(port);
    if (fd < 0) {
        sv_reply r = { 0, calloc(1, 1), NULL };
        r.body = r.raw;
        return r;
    }
    sv_client_send(fd, method, path, body);
    return sv_client_read(fd);
}

void sv_reply_free(sv_reply *r) {
    free(r->raw);
    r->raw = r->body = NULL;
}
