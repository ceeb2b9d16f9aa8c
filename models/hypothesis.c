/* Extra-P's default exponent sets and multi-parameter combination structures. */
#include "models/hypothesis.h"

/* In Extra-P's search order (ties keep the earlier candidate). */
static const struct hyp_exponent defaults[] = {
	{ 0, 1, 1 }, { 0, 1, 2 }, { 1, 4, 0 }, { 1, 3, 0 }, { 1, 4, 1 }, { 1, 3, 1 },
	{ 1, 4, 2 }, { 1, 3, 2 }, { 1, 2, 0 }, { 1, 2, 1 }, { 1, 2, 2 }, { 2, 3, 0 },
	{ 3, 4, 0 }, { 2, 3, 1 }, { 3, 4, 1 }, { 4, 5, 0 }, { 2, 3, 2 }, { 3, 4, 2 },
	{ 1, 1, 0 }, { 1, 1, 1 }, { 1, 1, 2 }, { 5, 4, 0 }, { 5, 4, 1 }, { 4, 3, 0 },
	{ 4, 3, 1 }, { 3, 2, 0 }, { 3, 2, 1 }, { 3, 2, 2 }, { 5, 3, 0 }, { 7, 4, 0 },
	{ 2, 1, 0 }, { 2, 1, 1 }, { 2, 1, 2 }, { 9, 4, 0 }, { 7, 3, 0 }, { 5, 2, 0 },
	{ 5, 2, 1 }, { 5, 2, 2 }, { 8, 3, 0 }, { 11, 4, 0 }, { 3, 1, 0 }, { 3, 1, 1 },
};

int hypothesis_defaults(const struct hyp_exponent **out)
{
	*out = defaults;
	return (int)(sizeof(defaults) / sizeof(defaults[0]));
}

static void put(struct hyp_structure *s, int nterms, const unsigned *masks)
{
	s->nterms = nterms;
	for (int k = 0; k < nterms; k++)
		s->mask[k] = masks[k];
}

#define S(...) do { const unsigned m_[] = { __VA_ARGS__ }; \
	put(&out[n_out++], (int)(sizeof(m_) / sizeof(m_[0])), m_); } while (0)

int hypothesis_structures(int n, struct hyp_structure *out)
{
	int n_out = 0;
	if (n < 2 || n > 31)
		return 0;
	unsigned all = (1u << n) - 1;
	S(all);                                         /* full product */
	out[n_out].nterms = n > HYP_MAX_TERMS ? HYP_MAX_TERMS : n;  /* full sum */
	for (int k = 0; k < out[n_out].nterms; k++)
		out[n_out].mask[k] = 1u << k;
	n_out++;
	const unsigned x = 1, y = 2, z = 4;
	if (n == 2) {
		S(x, x | y);                            /* a + a*b */
		S(y, x | y);                            /* b + a*b */
	} else if (n == 3) {
		const unsigned xyz = x | y | z, xy = x | y, yz = y | z, xz = x | z;
		S(xyz, x); S(xyz, y); S(xyz, z);
		S(xyz, xy); S(xyz, yz); S(xyz, xz);
		S(xyz, xy, z); S(xyz, yz, x); S(xyz, xz, y);
		S(xyz, x, y); S(xyz, x, z); S(xyz, y, z);
		S(xy, z); S(xy, z, y); S(xy, z, x);
		S(xz, y); S(xz, y, x); S(xz, y, z);
		S(yz, x); S(yz, x, y); S(yz, x, z);
	}
	return n_out;
}
