/* A small JSON reader for tests: parses a whole document (RFC 8259: objects, arrays, strings with
 * escapes, numbers, true, false, null) into a tree, or fails with the offset of the first error.
 * Tests use it to check files bhemu writes (traces, JSON reports) as JSON, not as text. */
#ifndef BH_TESTS_JSON_LITE_H
#define BH_TESTS_JSON_LITE_H

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum jl_type { JL_NULL, JL_BOOL, JL_NUMBER, JL_STRING, JL_ARRAY, JL_OBJECT };

struct jl {
	enum jl_type type;
	double num;                /* number; bool: 0 or 1 */
	char *str;                 /* string (UTF-8, escapes resolved) */
	unsigned n;                /* array items / object members */
	struct jl *item;           /* [n] */
	char **key;                /* object: [n] */
};

struct jl_in {
	const char *s;
	size_t at, len;
	int depth;
};

static void jl_ws(struct jl_in *in)
{
	while (in->at < in->len && strchr(" \t\r\n", in->s[in->at]))
		in->at++;
}

static bool jl_value(struct jl_in *in, struct jl *out);

static bool jl_string(struct jl_in *in, char **out)
{
	if (in->at >= in->len || in->s[in->at] != '"')
		return false;
	in->at++;
	size_t cap = 16, n = 0;
	char *b = malloc(cap);
	while (in->at < in->len && in->s[in->at] != '"') {
		unsigned char c = (unsigned char)in->s[in->at++];
		unsigned cp = c;
		if (c < 0x20)
			goto bad;
		if (c == '\\') {
			if (in->at >= in->len)
				goto bad;
			char e = in->s[in->at++];
			const char *esc = strchr("\"\\/bfnrt", e);
			if (esc) {
				cp = (unsigned char)"\"\\/\b\f\n\r\t"[esc - "\"\\/bfnrt"];
			} else if (e == 'u' && in->at + 4 <= in->len) {
				char hex[5] = { 0 };
				memcpy(hex, in->s + in->at, 4);
				for (int k = 0; k < 4; k++)
					if (!isxdigit((unsigned char)hex[k]))
						goto bad;
				cp = (unsigned)strtoul(hex, NULL, 16);
				in->at += 4;
			} else {
				goto bad;
			}
		}
		if (n + 4 >= cap)
			b = realloc(b, cap *= 2);
		if (cp < 0x80) {
			b[n++] = (char)cp;
		} else if (cp < 0x800) {
			b[n++] = (char)(0xC0 | cp >> 6);
			b[n++] = (char)(0x80 | (cp & 0x3F));
		} else {
			b[n++] = (char)(0xE0 | cp >> 12);
			b[n++] = (char)(0x80 | (cp >> 6 & 0x3F));
			b[n++] = (char)(0x80 | (cp & 0x3F));
		}
	}
	if (in->at >= in->len)
		goto bad;
	in->at++;
	b[n] = 0;
	*out = b;
	return true;
bad:
	free(b);
	return false;
}

static bool jl_push(struct jl *v, struct jl_in *in, char *key)
{
	v->item = realloc(v->item, (v->n + 1) * sizeof *v->item);
	if (v->type == JL_OBJECT)
		v->key = realloc(v->key, (v->n + 1) * sizeof *v->key), v->key[v->n] = key;
	memset(&v->item[v->n], 0, sizeof v->item[0]);
	return jl_value(in, &v->item[v->n++]);
}

static bool jl_value(struct jl_in *in, struct jl *out)
{
	jl_ws(in);
	if (in->at >= in->len || ++in->depth > 64)
		return false;
	const char *p = in->s + in->at;
	bool ok = false;
	if (*p == '{' || *p == '[') {
		bool obj = *p == '{';
		out->type = obj ? JL_OBJECT : JL_ARRAY;
		in->at++;
		jl_ws(in);
		if (in->at < in->len && in->s[in->at] == (obj ? '}' : ']')) {
			in->at++;
			ok = true;
		}
		while (!ok) {
			char *key = NULL;
			if (obj) {
				jl_ws(in);
				if (!jl_string(in, &key))
					break;
				jl_ws(in);
				if (in->at >= in->len || in->s[in->at++] != ':') {
					free(key);
					break;
				}
			}
			if (!jl_push(out, in, key))
				break;
			jl_ws(in);
			if (in->at >= in->len)
				break;
			char c = in->s[in->at++];
			if (c == (obj ? '}' : ']'))
				ok = true;
			else if (c != ',')
				break;
		}
	} else if (*p == '"') {
		out->type = JL_STRING;
		ok = jl_string(in, &out->str);
	} else if (!strncmp(p, "true", 4) || !strncmp(p, "false", 5) || !strncmp(p, "null", 4)) {
		out->type = *p == 'n' ? JL_NULL : JL_BOOL;
		out->num = *p == 't';
		in->at += *p == 'f' ? 5 : 4;
		ok = true;
	} else if (*p == '-' || isdigit((unsigned char)*p)) {
		char *end;
		out->type = JL_NUMBER;
		out->num = strtod(p, &end);
		ok = end > p;
		in->at += (size_t)(end - p);
	}
	in->depth--;
	return ok;
}

static void jl_free(struct jl *v)
{
	for (unsigned k = 0; k < v->n; k++) {
		jl_free(&v->item[k]);
		if (v->key)
			free(v->key[k]);
	}
	free(v->item);
	free(v->key);
	free(v->str);
	memset(v, 0, sizeof *v);
}

/* Parse the whole text; false with *err_at the offset where it stopped. */
static bool jl_parse(const char *text, size_t len, struct jl *out, size_t *err_at)
{
	struct jl_in in = { text, 0, len, 0 };
	memset(out, 0, sizeof *out);
	bool ok = jl_value(&in, out);
	jl_ws(&in);
	if (ok && in.at == len)
		return true;
	*err_at = in.at;
	jl_free(out);
	return false;
}

/* Member `key` of an object (NULL when absent or not an object). */
static const struct jl *jl_get(const struct jl *v, const char *key)
{
	for (unsigned k = 0; v && v->type == JL_OBJECT && k < v->n; k++)
		if (!strcmp(v->key[k], key))
			return &v->item[k];
	return NULL;
}

static const char *jl_str(const struct jl *v, const char *key)
{
	const struct jl *m = jl_get(v, key);
	return m && m->type == JL_STRING ? m->str : NULL;
}

static double jl_num(const struct jl *v, const char *key, double dflt)
{
	const struct jl *m = jl_get(v, key);
	return m && m->type == JL_NUMBER ? m->num : dflt;
}

/* A whole file, NUL-terminated (NULL when unreadable). */
static char *jl_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 4096, n = 0, r;
	char *b = malloc(cap);
	while ((r = fread(b + n, 1, cap - n - 1, f)) > 0)
		if ((n += r) + 1 >= cap)
			b = realloc(b, cap *= 2);
	fclose(f);
	b[n] = 0;
	*len = n;
	return b;
}

#endif
