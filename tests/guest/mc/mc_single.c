/* An ordinary single-core program (bare.ld, crt0.S: no _start_<core>), for the test that
 * `bhemu run --cores` starts such an ELF at its entry. */
#include "bare.h"

int main(void)
{
	bare_printf("single-core program ran\n");
	return 0;
}
