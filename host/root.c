/* clua's install root (root.h): found from the running file's place, the
   same way for the clua binary (main.c) and for cl.so (module.c). */
#define _DEFAULT_SOURCE /* realpath */
#include "root.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char root[4096];

void clua_set_root(const char *r) {
  if (!r) {
    root[0] = 0;
    return;
  }
  strncpy(root, r, sizeof root - 1);
  root[sizeof root - 1] = 0;
}

const char *clua_root(void) { return root[0] ? root : NULL; }

static int is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *clua_find_root(const char *file, const char *marker, const char *const tries[]) {
  char *self = realpath(file, NULL), *slash;
  if (!self) return NULL;
  if ((slash = strrchr(self, '/')) != NULL) *slash = 0; /* the file's folder */
  const char *found = NULL;
  for (int i = 0; slash && tries[i] && !found; i++) {
    char path[PATH_MAX * 2];
    int n = snprintf(path, sizeof path, "%s/%s/%s", self, tries[i], marker);
    if (n < 0 || (size_t)n >= sizeof path || !is_dir(path)) continue;
    path[strlen(path) - strlen(marker) - 1] = 0; /* the folder that holds marker */
    char *canon = realpath(path, NULL);
    if (canon && strlen(canon) < sizeof root) {
      clua_set_root(canon);
      found = clua_root();
    }
    free(canon);
  }
  free(self);
  return found;
}
