/* Sorting a PRNG-filled array: quicksort (median of three, insertion sort for short runs)
 * and heapsort on alternate rounds, each checked for order. Branchy, load/store heavy. */
#include "bench.h"

#ifndef SORT_ROUNDS /* override with -DSORT_ROUNDS=N */
#define SORT_ROUNDS 48			/* tune: ~8.8 M instructions per round */
#endif
#define SORT_N 40000

static uint32_t data[SORT_N];

static void swap(uint32_t *x, uint32_t *y)
{
	uint32_t t = *x;
	*x = *y;
	*y = t;
}

static void insertion_sort(uint32_t *v, int n)
{
	for (int i = 1; i < n; i++) {
		uint32_t key = v[i];
		int j = i - 1;
		while (j >= 0 && v[j] > key) {
			v[j + 1] = v[j];
			j--;
		}
		v[j + 1] = key;
	}
}

static void quicksort(uint32_t *v, int n)
{
	while (n > 16) {
		int mid = n / 2;
		if (v[mid] < v[0])
			swap(&v[mid], &v[0]);
		if (v[n - 1] < v[0])
			swap(&v[n - 1], &v[0]);
		if (v[n - 1] < v[mid])
			swap(&v[n - 1], &v[mid]);
		uint32_t pivot = v[mid];
		int i = 0, j = n - 1;
		for (;;) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i >= j)
				break;
			swap(&v[i], &v[j]);
			i++;
			j--;
		}
		/* Recurse into the smaller half, loop on the larger: stack depth stays O(log n). */
		int left = j + 1;
		if (left < n - left) {
			quicksort(v, left);
			v += left;
			n -= left;
		} else {
			quicksort(v + left, n - left);
			n = left;
		}
	}
	insertion_sort(v, n);
}

static void sift_down(uint32_t *v, int root, int n)
{
	for (;;) {
		int child = 2 * root + 1;
		if (child >= n)
			return;
		if (child + 1 < n && v[child + 1] > v[child])
			child++;
		if (v[root] >= v[child])
			return;
		swap(&v[root], &v[child]);
		root = child;
	}
}

static void heapsort(uint32_t *v, int n)
{
	for (int i = n / 2 - 1; i >= 0; i--)
		sift_down(v, i, n);
	for (int end = n - 1; end > 0; end--) {
		swap(&v[0], &v[end]);
		sift_down(v, 0, end);
	}
}

int main(void)
{
	uint32_t seed = 0x2545f491u;
	uint32_t digest = BARE_FNV_INIT;

	for (int round = 0; round < SORT_ROUNDS; round++) {
		/* Every other round uses a narrow value range: many equal keys. */
		uint32_t mask = (round & 2) ? 0x3ffu : 0xffffffffu;
		for (int i = 0; i < SORT_N; i++)
			data[i] = bench_rand(&seed) & mask;
		if (round & 1)
			heapsort(data, SORT_N);
		else
			quicksort(data, SORT_N);
		for (int i = 1; i < SORT_N; i++) {
			if (data[i - 1] > data[i]) {
				bare_printf("sort: round %d not sorted at %d\n", round, i);
				return 1;
			}
		}
		digest = bare_fnv1a_u32(digest, data[0]);
		digest = bare_fnv1a_u32(digest, data[SORT_N / 2]);
		digest = bare_fnv1a_u32(digest, data[SORT_N - 1]);
	}
	bare_printf("sort: n=%d rounds=%d median=%08x digest=%08x\n", SORT_N, SORT_ROUNDS,
		    data[SORT_N / 2], digest);
	return 0;
}
