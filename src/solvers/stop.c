// SPDX-License-Identifier: MIT
// The stop request of stop.h.
#include "solvers/stop.h"

volatile sig_atomic_t tsr_stop_flag = 0;
