/* bartune new DIR: a working skeleton of one's own problem and space in a
 * new folder DIR, named after its last component: the space, its problem,
 * a template with a producer/consumer ring over bartune's barrier protocols,
 * the CPU reference and a program that calls the emitted header. The files
 * are gen/skeleton/ of bartune with "skeleton" replaced by the name. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "util.h"

static const char *const FILES[] = {"skeleton.lua", "problems/skeleton.lua",
                                    "templates/skeleton.cu", "templates/skeleton/reference.c",
                                    "check.cu"};

/* `text` with every "skeleton" replaced by `name`. */
static char *renamed(const char *text, const char *name) {
    strbuf b = {0};
    for (const char *p = text, *hit; *p; p = hit + 8) {
        hit = strstr(p, "skeleton");
        if (!hit) {
            sb_printf(&b, "%s", p);
            break;
        }
        sb_printf(&b, "%.*s%s", (int)(hit - p), p, name);
    }
    return b.data ? b.data : xstrdup("");
}

/* Whether the skeleton's code can use s as a name: not a C or C++ keyword
 * (its reference defines a function of that name), nor the header's own. */
static bool reserved(const char *s) {
    static const char *const WORDS[] = {
        "alignas",   "alignof",  "and",      "asm",      "auto",     "bool",      "break",
        "case",      "catch",    "char",     "class",    "const",    "constexpr", "continue",
        "decltype",  "default",  "delete",   "do",       "double",   "else",      "enum",
        "explicit",  "export",   "extern",   "false",    "float",    "for",       "friend",
        "goto",      "if",       "inline",   "int",      "long",     "mutable",   "namespace",
        "new",       "noexcept", "not",      "nullptr",  "operator", "or",        "private",
        "protected", "public",   "register", "restrict", "return",   "short",     "signed",
        "sizeof",    "static",   "struct",   "switch",   "template", "this",      "throw",
        "true",      "try",      "typedef",  "typename", "union",    "unsigned",  "using",
        "virtual",   "void",     "volatile", "while",    "main",     "stream"};
    for (size_t i = 0; i < sizeof WORDS / sizeof WORDS[0]; i++)
        if (!strcmp(s, WORDS[i])) return true;
    return !strncmp(s, "bt_", 3) || !strncmp(s, "bartune_", 8) || !strncmp(s, "__", 2);
}

static bool identifier(const char *s) {
    if (!*s || !(isalpha((unsigned char)*s) || *s == '_')) return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_') return false;
    return true;
}

int cmd_new(const options *o) {
    const char *dir = o->space_path;
    char *base = xstrdup(dir); /* DIR/ names DIR */
    size_t blen = strlen(base);
    while (blen > 1 && base[blen - 1] == '/')
        base[--blen] = '\0';
    const char *slash = strrchr(base, '/');
    char *name = xstrdup(slash ? slash + 1 : base);
    free(base);
    size_t len = strlen(name);
    int rc = EXIT_OK;
    struct stat st;
    if (!identifier(name) || reserved(name) || !strcmp(name, "skeleton") || len > 64) {
        msg_error("bartune new %s: the folder's name '%s' names the problem and space: a C "
                  "identifier of at most 64 characters other than 'skeleton', a C or C++ keyword, "
                  "stream, main or a name starting with bt_, bartune_ or __ (e.g. my_softmax)",
                  dir, name);
        rc = EXIT_USAGE;
    } else if (lstat(dir, &st) == 0) {
        msg_error("bartune new %s: %s exists; nothing was written (name a new folder)", dir, dir);
        rc = EXIT_INPUT;
    }
    for (size_t i = 0; rc == EXIT_OK && i < sizeof FILES / sizeof FILES[0]; i++) {
        char *src = xasprintf("%s/gen/skeleton/%s", o->root, FILES[i]);
        char *rel = renamed(FILES[i], name), *dst = path_join(dir, rel);
        char *text = read_file(src, NULL), *out = text ? renamed(text, name) : NULL;
        char *parent = xstrdup(dst);
        *strrchr(parent, '/') = '\0';
        if (!text) {
            msg_error("cannot read %s (bartune's skeleton): %s", src, strerror(errno));
            rc = EXIT_FAILURE_;
        } else if (!mkdir_p(parent) || !write_file_atomic(dst, out, strlen(out))) {
            msg_error("cannot write %s: %s", dst, strerror(errno));
            rc = EXIT_FAILURE_;
        }
        free(src), free(rel), free(dst), free(text), free(out), free(parent);
    }
    if (rc == EXIT_OK)
        printf("wrote %s/: %s.lua (the space), problems/%s.lua, templates/%s.cu, "
               "templates/%s/reference.c, check.cu\n"
               "next: bartune list %s/%s.lua; bartune check %s/%s.lua; on a GPU, bartune run "
               "%s/%s.lua\n",
               dir, name, name, name, name, dir, name, dir, name, dir, name);
    free(name);
    return rc;
}
