/* Derived events: PAPI's derived preset types as postfix programs and the
 * evaluator the collector's reader uses to combine natives into one value
 * per XU (counters/derive.h). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "counters/derive.h"
#include "pmcfuse/profile.h"
#include "util/internal.h"

#define STACK 32

int pmcfi_postfix_eval(const char *expr, const double *vals, unsigned n, double hz, double *out)
{
	double st[STACK];
	int top = 0;
	if (!expr[0]) {
		if (n < 1)
			return pmcfi_fail(PMCF_ESYNTAX, "empty postfix expression without natives");
		*out = vals[0];
		return 0;
	}
	for (const char *p = expr; *p;) {
		size_t at = (size_t)(p - expr);
		if (*p == '|') {
			p++;
			continue;
		}
		if (*p == 'N' || *p == '#' || isdigit((unsigned char)*p)) {
			double v;
			if (*p == '#') {
				v = hz;
				p++;
			} else {
				int native = *p == 'N';
				p += native;
				if (!isdigit((unsigned char)*p))
					return pmcfi_fail(PMCF_ESYNTAX,
							  "postfix '%s': 'N' without a number at %zu", expr,
							  at);
				unsigned long k = 0;
				while (isdigit((unsigned char)*p) && k < 1000000000ul)
					k = k * 10 + (unsigned long)(*p++ - '0');
				if (isdigit((unsigned char)*p))
					return pmcfi_fail(PMCF_ESYNTAX,
							  "postfix '%s': number too long at %zu", expr, at);
				if (native && k >= n)
					return pmcfi_fail(
						PMCF_ESYNTAX,
						"postfix '%s': N%lu at %zu but the event has %u natives",
						expr, k, at, n);
				v = native ? vals[k] : (double)k;
			}
			if (*p && *p != '|' && !strchr("+-*/", *p))
				return pmcfi_fail(PMCF_ESYNTAX, "postfix '%s': unexpected '%c' at %zu", expr,
						  *p, (size_t)(p - expr));
			if (top == STACK)
				return pmcfi_fail(PMCF_ESYNTAX, "postfix '%s': more than %d values pending",
						  expr, STACK);
			st[top++] = v;
			continue;
		}
		if (!strchr("+-*/", *p))
			return pmcfi_fail(PMCF_ESYNTAX, "postfix '%s': unknown token '%c' at %zu", expr, *p,
					  at);
		if (top < 2)
			return pmcfi_fail(PMCF_ESYNTAX, "postfix '%s': '%c' at %zu needs two operands", expr,
					  *p, at);
		double b = st[--top];
		double a = st[top - 1];
		switch (*p++) {
		case '+': a += b; break;
		case '-': a -= b; break;
		case '*': a *= b; break;
		default: a = b == 0 ? PMCF_MISSING : a / b; break;
		}
		st[top - 1] = a;
	}
	if (top != 1)
		return pmcfi_fail(PMCF_ESYNTAX, "postfix '%s' leaves %d values instead of one", expr, top);
	*out = st[0];
	return 0;
}

int pmcfi_postfix_check(const char *expr, unsigned n)
{
	double vals[PMCFI_DERIVE_MAX], out;
	if (n > PMCFI_DERIVE_MAX)
		return pmcfi_fail(PMCF_EINVAL, "%u natives (at most %d)", n, PMCFI_DERIVE_MAX);
	for (unsigned i = 0; i < n; i++)
		vals[i] = i + 1;
	return pmcfi_postfix_eval(expr, vals, n, 1e9, &out);
}

/* Appends "N<i>|" for i in 0..n-1, op after every one but the first. */
static int chain(unsigned n, char op, char *out, size_t outlen)
{
	size_t o = 0;
	for (unsigned i = 0; i < n; i++) {
		int w = i ? snprintf(out + o, outlen - o, "N%u|%c|", i, op)
			  : snprintf(out + o, outlen - o, "N0|");
		if (w < 0 || (size_t)w >= outlen - o)
			return pmcfi_fail(PMCF_EINVAL, "postfix buffer too small");
		o += (size_t)w;
	}
	return 0;
}

int pmcfi_derive_postfix(const char *derived, const char *postfix, unsigned n, char *out, size_t outlen)
{
	if (n < 1 || n > PMCFI_DERIVE_MAX)
		return pmcfi_fail(PMCF_EINVAL, "%u natives (1 to %d)", n, PMCFI_DERIVE_MAX);
	if (outlen < 8)
		return pmcfi_fail(PMCF_EINVAL, "postfix buffer too small");
	out[0] = '\0';
	if (!derived || !derived[0] || strcmp(derived, "NOT_DERIVED") == 0 ||
	    strcmp(derived, "DERIVED_CMPD") == 0)
		return chain(1, '+', out, outlen); /* CMPD: the value lives in the first */
	if (strcmp(derived, "DERIVED_ADD") == 0)
		return chain(n, '+', out, outlen);
	if (strcmp(derived, "DERIVED_SUB") == 0)
		return chain(n, '-', out, outlen);
	if (strcmp(derived, "DERIVED_POSTFIX") == 0) {
		if (!postfix || strlen(postfix) >= outlen)
			return pmcfi_fail(PMCF_ESYNTAX, "postfix expression missing or too long");
		int err = pmcfi_postfix_check(postfix, n);
		if (err)
			return err;
		snprintf(out, outlen, "%s", postfix);
		return 0;
	}
	if (strcmp(derived, "DERIVED_PS") == 0 || strcmp(derived, "DERIVED_ADD_PS") == 0)
		return pmcfi_fail(PMCF_ENOTSUP, "PAPI derives it as a rate per second (%s), not a count",
				  derived);
	return pmcfi_fail(PMCF_ENOTSUP, "PAPI derives it in a way pmcfuse does not know (%s)", derived);
}

double pmcfi_derive_value(const struct pmcfi_derive *d, const double *v)
{
	const double *x = v + d->first;
	for (unsigned i = 0; i < d->n; i++)
		if (isnan(x[i]))
			return PMCF_MISSING;
	double out;
	if (pmcfi_postfix_eval(d->expr, x, d->n, d->hz, &out) != 0) {
		pmcfi_clear_error();
		return PMCF_MISSING;
	}
	return out;
}
