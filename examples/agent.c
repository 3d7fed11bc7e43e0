/* A ginbox outside player in C (protocol "ginbox-agent 1", docs/outside-players.md).
 *
 *   cc -O2 -o agent examples/agent.c && ginbox play --strategies agent:./agent,simple
 *
 * ginbox writes each message as one line of compact JSON (no spaces outside strings), which
 * lets this player find what it needs with plain string search instead of a JSON library.
 * It never draws the discard, knocks whenever it may and discards its highest legal card. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *RANKS = "A23456789TJQK";

static int value(const char *card) {
    int rank = (int)(strchr(RANKS, card[0]) - RANKS) + 1;
    return rank > 10 ? 10 : rank;
}

/* The text of key "name" when it is a string ("type", "decision"), else "". */
static void field(const char *line, const char *name, char *out, size_t size) {
    char key[64];
    snprintf(key, sizeof key, "\"%s\":\"", name);
    const char *at = strstr(line, key);
    out[0] = '\0';
    if (at == NULL)
        return;
    at += strlen(key);
    size_t n = strcspn(at, "\"");
    if (n >= size)
        n = size - 1;
    memcpy(out, at, n);
    out[n] = '\0';
}

static void decide(const char *line, const char *decision, long id) {
    const char *legal = strstr(line, "\"legal\":[");
    char move[16] = "";
    if (strcmp(decision, "offer") == 0)
        strcpy(move, "pass");
    else if (strcmp(decision, "draw") == 0)
        strcpy(move, "draw_stock");
    else if (strcmp(decision, "knock") == 0)
        strcpy(move, "knock");
    else if (legal != NULL) { /* a discard: the legal cards are two-letter strings */
        for (const char *c = legal + 9; *c != ']'; c++) {
            if (*c == '"' && c[3] == '"') {
                if (move[0] == '\0' || value(c + 1) > value(move)) {
                    move[0] = c[1];
                    move[1] = c[2];
                    move[2] = '\0';
                }
                c += 3;
            }
        }
    }
    printf("{\"type\":\"move\",\"id\":%ld,\"move\":\"%s\"}\n", id, move);
}

int main(void) {
    static char line[1 << 16];
    char type[32], decision[32];
    while (fgets(line, sizeof line, stdin) != NULL) {
        field(line, "type", type, sizeof type);
        const char *id_at = strstr(line, "\"id\":");
        long id = id_at ? strtol(id_at + 5, NULL, 10) : 0;
        if (strcmp(type, "hello") == 0)
            printf("{\"type\":\"hello\",\"protocol\":\"ginbox-agent 1\",\"name\":\"c-example\"}\n");
        else if (strcmp(type, "decision") == 0) {
            field(line, "decision", decision, sizeof decision);
            decide(line, decision, id);
        } else if (strcmp(type, "showdown") == 0)
            printf("{\"type\":\"layout\",\"id\":%ld}\n", id);
        else if (strcmp(type, "hand_end") == 0)
            printf("{\"type\":\"ready\"}\n");
        else if (strcmp(type, "bye") == 0)
            break;
        fflush(stdout);
    }
    return 0;
}
