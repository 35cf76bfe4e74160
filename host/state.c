/* clua's process-wide state (state.h): ^C and objects given up. */
#include "state.h"

#include <signal.h>
#include <string.h>

volatile sig_atomic_t clua_interrupted;
volatile sig_atomic_t clua_given_up;
volatile sig_atomic_t clua_direct_wait;
void (*volatile clua_sigint_handler)(int);

void clua_keep_sigint(void) {
  void (*h)(int) = clua_sigint_handler;
  struct sigaction cur, sa;
  if (!h || sigaction(SIGINT, NULL, &cur) != 0 || cur.sa_handler == h) return;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = h;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
}
