/*
 * The extrapolation check: can a region's model be trusted beyond the
 * measured range?  Along one parameter, the points at its largest value
 * are left out, the model is refitted on the rest (the same modeller and
 * options), and it predicts the left-out points.  The prediction error is
 * the median over those points of |f - y| / y (y their point estimates);
 * the noise is the median of their robust CoVs.  The model is unstable
 * when the error exceeds both 2x the noise and EXTRAP_MIN_ERROR (10%).
 * A parameter needs EXTRAP_MIN_VALUES distinct values (so that 4 remain).
 */
#ifndef PS_EXTRAPOLATE_H
#define PS_EXTRAPOLATE_H
#include "collectors/experiment.h"
#include "common/error.h"
#include "models/modeler.h"

#define EXTRAP_MIN_VALUES 5
#define EXTRAP_MIN_ERROR 0.10

struct extrap_result {
	int param;
	int nvalues;            /* distinct values of param with data */
	double xmax;            /* the value left out */
	int npredicted;         /* points predicted */
	double error;           /* median relative prediction error */
	double noise;           /* median robust CoV of the predicted points (0 if unknown) */
	int unstable;
	struct pmnf_model model;        /* the model without xmax */
};

/*
 * Test series s along param.  Returns 1 when tested, 0 when param has too
 * few values, -1 with err set when the modeller fails.  r is initialised in
 * every case (extrap_result_release).
 */
int extrapolate_test(const struct experiment *e, const struct exp_series *s, int param,
		     const struct model_options *opt, struct extrap_result *r, struct perr *err);
void extrap_result_release(struct extrap_result *r);

#endif
