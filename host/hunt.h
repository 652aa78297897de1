/* bhemu hunt (host/hunt.c): the CLI command that runs a program over many seeds. */
#ifndef BH_HOST_HUNT_H
#define BH_HOST_HUNT_H

/* argv[0] is the command's name ("bhemu hunt"); returns the exit status (see its --help). */
int bh_cli_hunt(int argc, char **argv);

#endif
