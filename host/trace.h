/* Timeline trace (host/trace.c; the API in bhemu.h: bh_device_trace_start / _stop). */
#ifndef BH_HOST_TRACE_H
#define BH_HOST_TRACE_H

#include "bhemu/bhemu.h"

struct bh_trace;

/* Observers of BH_EVENT_LAUNCH: the host launched on `tile` ("launch") or set its go ("go"). */
void bh_trace_launch(struct bh_device *dev, unsigned tile, const char *what);

#endif
