/*
 * The hypothesis search space of the modeller: Extra-P's default
 * single-parameter building blocks x^(num/den) * log2(x)^log, in the order
 * Extra-P tries them (the order decides between exactly equal costs), and
 * the multi-parameter combination structures.
 *
 * Invariants: the tables are constant; every building block has num/den
 * or log non-zero; den > 0.
 */
#ifndef PS_HYPOTHESIS_H
#define PS_HYPOTHESIS_H

struct hyp_exponent {
	int num, den;           /* polynomial exponent num/den */
	int log;                /* exponent of log2(x) */
};

/* The 42 default building blocks (19 without log, 13 with log^1, 10 with log^2). */
int hypothesis_defaults(const struct hyp_exponent **out);
static inline double hyp_poly(const struct hyp_exponent *h) { return (double)h->num / h->den; }
#define HYP_MAX_DEFAULTS 64
/*
 * How far a building block is from the simplest forms (x, x^2, x^3: 0):
 * its log2 exponent plus its exponent's denominator minus one, so x^2 * log2(x)
 * is 1, x^(3/2) 1, x^(9/4) 3, x^(4/5) 4.  The robust selection takes the
 * simplest of the hypotheses that fit equally well (docs/modelling.md).
 */
static inline int hyp_complexity(const struct hyp_exponent *h) { return h->log + h->den - 1; }

/*
 * A combination of single-parameter terms for n surviving parameters
 * (numbered 0..n-1): nterms products, term k multiplies the parameters
 * whose bits are set in mask[k].
 */
#define HYP_MAX_TERMS 31
struct hyp_structure {
	int nterms;
	unsigned mask[HYP_MAX_TERMS];
};

/*
 * Extra-P's candidate structures for n >= 2 parameters, in its order:
 * n == 2: a*b, a+b, a+a*b, b+a*b; n == 3: the full product, the full sum
 * and the 21 mixed groupings; n > 3: the full product and the full sum.
 * Fills out (at least 23 entries) and returns the count.
 */
int hypothesis_structures(int n, struct hyp_structure *out);

#endif
