/* The mpi module (mpi.c, built with make MPI=1 and -DCLUA_MPI): main.c puts
   luaopen_mpi in package.preload.mpi, and calls clua_mpi_end as the process
   ends, after the state is closed: where luaopen_mpi started MPI, failed 0
   finalizes it and another value aborts every rank with it; else it does
   nothing. (Not mpi.h: that is OpenMPI's, which mpi.c includes.) */
#ifndef CLUA_MPIMOD_H
#define CLUA_MPIMOD_H

#include <lua.h>

int luaopen_mpi(lua_State *L);
void clua_mpi_end(int failed);

#endif
