/* clua's install root: the folder holding its lua/ and kernels/ (the build
   tree, PREFIX/share/clua, or LIBDIR/clua beside an installed cl.so),
   found once from the place of the running file (root.c). */
#ifndef CLUA_ROOT_H
#define CLUA_ROOT_H

/* Finds the root from file, the path of the running binary or shared object
   (links are resolved): the first folder of tries (paths relative to the
   file's folder, NULL-terminated) that holds marker, made canonical. Sets it
   (clua_set_root) and returns it; NULL, and nothing set, when none does.
   main.c: "/proc/self/exe", "lua/clua", {"..", "../..", "../share/clua"};
   module.c: cl.so's path, "kernels", {"clua", ".."}. */
const char *clua_find_root(const char *file, const char *marker, const char *const tries[]);

/* Set once before any script runs (main.c; module.c for cl.so); cl.root and
   program_file read it. clua_root returns NULL when it is not known. */
void clua_set_root(const char *root);
const char *clua_root(void);

#endif
