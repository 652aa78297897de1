/* The soc descriptor tt-umd reads beside a simulator library (soc_descriptor.yaml next to
 * libbhemu_ttsim.so): the chip's grid in NoC0 coordinates, as tt-umd's Blackhole descriptors
 * lay it out (`bhemu soc-descriptor --board p150`).
 *
 * tt-umd's simulator path applies no Tensix or DRAM harvesting to this file (its mock cluster
 * for a Blackhole simulator has masks 0) but harvests Ethernet channels 5 and 8 (mask 0x120). So
 * the descriptor lists the Tensix columns and DRAM banks the board has, and Ethernet as tt-umd's
 * Blackhole descriptor does (all 14 channels; the P150 has 5 and 8 harvested, which tt-umd then
 * removes) when the board has Ethernet tiles, none on a P100. */
#include <stdio.h>
#include <stdlib.h>

#include "bhemu/bhemu.h"
#include "fabric/topology.h"

/* NoC0 coordinates of a Blackhole chip (identity with translated ones for Tensix tiles of an
 * unharvested chip; DRAM, PCIe, Ethernet and ARC translate elsewhere, which tt-umd does itself). */
static const unsigned char dram_xy[8][3][2] = {
	{ { 0, 0 }, { 0, 1 }, { 0, 11 } }, { { 0, 2 }, { 0, 10 }, { 0, 3 } },
	{ { 0, 9 }, { 0, 4 }, { 0, 8 } }, { { 0, 5 }, { 0, 7 }, { 0, 6 } },
	{ { 9, 0 }, { 9, 1 }, { 9, 11 } }, { { 9, 2 }, { 9, 10 }, { 9, 3 } },
	{ { 9, 9 }, { 9, 4 }, { 9, 8 } }, { { 9, 5 }, { 9, 7 }, { 9, 6 } },
};
static const unsigned char router_xy[][2] = {
	{ 1, 0 }, { 3, 0 }, { 4, 0 }, { 5, 0 }, { 6, 0 }, { 7, 0 }, { 10, 0 }, { 12, 0 }, { 13, 0 },
	{ 14, 0 }, { 15, 0 }, { 16, 0 }, { 8, 1 }, { 8, 10 }, { 8, 8 }, { 8, 6 }, { 8, 4 }, { 8, 11 },
};

int bh_soc_descriptor(enum bh_board board, char *buf, size_t len)
{
	char *text = NULL;
	size_t size = 0;
	struct bh_topology t;
	struct bh_topology_config cfg = { .board = board };
	if (board == BH_BOARD_GRID || bh_topology_init(&t, &cfg, NULL, 0) != 0)
		return BH_ERR_ARG;
	FILE *o = open_memstream(&text, &size);
	if (!o)
		return BH_ERR_SYS;
	fprintf(o, "# Blackhole %s as bhemu models it (bhemu soc-descriptor --board %s): NoC0 coordinates.\n"
	      "# %u Tensix tiles, %u DRAM banks, %s.\n"
	      "grid:\n  x_size: 17\n  y_size: 12\n\narc:\n  [ 8-0 ]\n\npcie:\n  [ 2-0, 11-0 ]\n\ndram:\n  [\n",
	      board == BH_BOARD_P150 ? "P150" : "P100", bh_board_name(board), t.ntiles, t.ndram,
	      t.neth ? "12 Ethernet tiles (channels 5 and 8 harvested), no links: every port down"
		     : "no Ethernet tiles");
	for (unsigned b = 0; b < t.ndram; b++)
		fprintf(o, "    [%u-%u, %u-%u, %u-%u],\n", dram_xy[b][0][0], dram_xy[b][0][1], dram_xy[b][1][0],
		    dram_xy[b][1][1], dram_xy[b][2][0], dram_xy[b][2][1]);
	fprintf(o, "  ]\n\neth:\n  [");
	for (unsigned c = 0; t.neth && c < BH_ETH_CHANNELS; c++) {
		unsigned x, y;
		bh_topology_eth_noc0(c, &x, &y);
		fprintf(o, " %u-%u,", x, y);
	}
	fprintf(o, " ]\n\nfunctional_workers:\n  [\n");
	for (unsigned r = 0; r < t.rows; r++) {
		fprintf(o, "   ");
		for (unsigned c = 0; c < t.cols; c++)
			fprintf(o, " %u-%u,", t.col_x[c], t.row_y[r]);
		fprintf(o, "\n");
	}
	fprintf(o, "  ]\n\nrouter_only:\n  [\n   ");
	for (unsigned i = 0; i < sizeof router_xy / sizeof router_xy[0]; i++)
		fprintf(o, " %u-%u,", router_xy[i][0], router_xy[i][1]);
	fprintf(o, "\n  ]\n\nsecurity:\n  [ 8-2 ]\n\nl2cpu:\n  [ 8-3, 8-9, 8-5, 8-7 ]\n\n");
	fprintf(o, "noc0_x_to_noc1_x:\n  [ ");
	for (int x = 16; x >= 0; x--)
		fprintf(o, "%d%s", x, x ? ", " : " ]\n\n");
	fprintf(o, "noc0_y_to_noc1_y:\n  [ ");
	for (int y = 11; y >= 0; y--)
		fprintf(o, "%d%s", y, y ? ", " : " ]\n\n");
	fprintf(o, "worker_l1_size:\n  1572864\n\ndram_bank_size:\n  4294967296\n\neth_l1_size:\n  262144\n\n"
	      "arch_name: BLACKHOLE\n\nfeatures:\n  unpacker:\n    version: 2\n"
	      "    inline_srca_trans_without_srca_trans_instr: True\n  math:\n    dst_size_alignment: 32768\n"
	      "  packer:\n    version: 2\n  overlay:\n    version: 2\n");
	if (fclose(o) != 0) {
		free(text);
		return BH_ERR_SYS;
	}
	if (buf && len)
		snprintf(buf, len, "%s", text);
	free(text);
	return (int)size;
}
