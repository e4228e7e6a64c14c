/*
 * benchstat: the statistics of bench-c/run, for one sample or two.
 *
 * usage: benchstat V1 V2 ...              -> n= median= min= max=
 *        benchstat V1 V2 ... -- W1 W2 ...  -> the same for V, then n2= median2= min2= max2=
 *                                             change_pct= p=
 *
 * change_pct is the change of W's median against V's, in percent (V is the base). p is the
 * exact two-sided permutation test of the difference of the means: over every way of splitting
 * the pooled values into groups of |V| and |W| values (C(10,5) = 252 ways for 5 + 5), twice the
 * smaller of the fractions whose mean difference is at least / at most the observed one (for
 * equal group sizes: the fraction whose |difference| is at least the observed |difference|),
 * as scipy.stats.permutation_test defines its two-sided p. It is exact, not sampled:
 * with 5 + 5 values that do not overlap, p = 2/252 = 0.0079, the smallest possible. Samples of
 * more than 24 values in all are refused (the enumeration would be too long).
 *
 * Why here and in C: the maintained implementation is scipy.stats.permutation_test, but scipy is
 * not on the project's machines and the runner needs nothing beyond a C compiler; the exact
 * enumeration is a few lines, and tests/benchstat.rs checks it against known values (complete
 * separation, and values that scipy 1.17 gives for the same samples).
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_VALUES 24

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void
summary(const double *v, int n, const char *suffix)
{
    double s[MAX_VALUES], median;
    memcpy(s, v, sizeof(double) * (size_t)n);
    qsort(s, (size_t)n, sizeof(double), cmp_double);
    median = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    printf("n%s=%d median%s=%.10g min%s=%.10g max%s=%.10g", suffix, n, suffix, median, suffix, s[0], suffix, s[n - 1]);
}

static double
median_of(const double *v, int n)
{
    double s[MAX_VALUES];
    memcpy(s, v, sizeof(double) * (size_t)n);
    qsort(s, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/*
 * The exact two-sided permutation p-value of the difference of means of x[0..a) and
 * x[a..a+b): every subset of a of the a+b values (Gosper's hack over bit masks) is one split;
 * p is twice the smaller one-sided fraction (at most 1), as scipy.stats.permutation_test's
 * two-sided p. With a == b the splits' differences are symmetric and this is also the fraction
 * of splits whose |difference| is at least the observed one.
 */
static double
permutation_p(const double *x, int a, int b)
{
    int n = a + b, i;
    double total = 0, scale = 0, observed = 0, tol;
    uint32_t mask, limit = (uint32_t)1 << n;
    uint64_t splits = 0, above = 0, below = 0, fewer;
    for (i = 0; i < n; i++) {
        total += x[i];
        if (fabs(x[i]) > scale)
            scale = fabs(x[i]);
    }
    for (i = 0; i < a; i++)
        observed += x[i];
    observed = observed / a - (total - observed) / b;
    tol = 1e-9 * (scale > 0 ? scale : 1); /* the same split summed in another order is a tie */
    for (mask = ((uint32_t)1 << a) - 1; mask < limit;) {
        double sum = 0, d;
        uint32_t m = mask, low, ripple;
        while (m != 0) {
            sum += x[__builtin_ctz(m)];
            m &= m - 1;
        }
        splits++;
        d = sum / a - (total - sum) / b;
        above += d >= observed - tol;
        below += d <= observed + tol;
        /* Next mask with the same number of bits set. */
        low = mask & -mask;
        ripple = mask + low;
        if (ripple == 0)
            break;
        mask = (((ripple ^ mask) >> 2) / low) | ripple;
    }
    fewer = above < below ? above : below;
    return 2 * fewer >= splits ? 1.0 : 2.0 * (double)fewer / (double)splits;
}

static int
usage(void)
{
    fprintf(stderr, "usage: benchstat V1 V2 ... [-- W1 W2 ...]   (at most %d values in all)\n", MAX_VALUES);
    return 2;
}

int
main(int argc, char **argv)
{
    double x[MAX_VALUES];
    int i, a = 0, b = 0, second = 0;
    for (i = 1; i < argc; i++) {
        char *end;
        if (strcmp(argv[i], "--") == 0) {
            if (second)
                return usage();
            second = 1;
            continue;
        }
        if (a + b == MAX_VALUES)
            return usage();
        errno = 0;
        x[a + b] = strtod(argv[i], &end);
        if (errno != 0 || end == argv[i] || *end != '\0' || !isfinite(x[a + b])) {
            fprintf(stderr, "benchstat: \"%s\" is not a number\n", argv[i]);
            return usage();
        }
        if (second)
            b++;
        else
            a++;
    }
    if (a == 0 || (second && b == 0))
        return usage();
    summary(x, a, "");
    if (second) {
        double m1 = median_of(x, a), m2 = median_of(x + a, b);
        printf(" ");
        summary(x + a, b, "2");
        printf(" change_pct=%.1f p=%.4f", m1 != 0 ? (m2 / m1 - 1) * 100 : 0.0, permutation_p(x, a, b));
    }
    printf("\n");
    return 0;
}
