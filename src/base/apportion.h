/*
 * apportion.h - integer shares of a total by the largest-remainder
 * (Hamilton) method, for values that are known only as proportions:
 * reconstructed stacks and call trees given in percentages.
 */
#ifndef PC_APPORTION_H
#define PC_APPORTION_H

#include "base/pc.h"

/*
 * Sets out[i] to weight[i]'s share of total: weights are scaled so that
 * they add up to total, each share is rounded down, and the units left
 * go one each to the largest fractional parts (ties to the lower index;
 * fractional parts are compared in billionths, so that parts equal but for
 * floating-point noise tie).
 * The shares add up exactly to total. Weights must be finite and >= 0;
 * when they are all 0 every share is 0 and the function returns -1
 * (unless total is 0 too), else 0.
 */
int pc_apportion(const double *weight, size_t n, uint64_t total, uint64_t *out);

#endif
