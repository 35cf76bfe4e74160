/* clua's version: cl.version and `clua -v`. */
#ifndef CLUA_VERSION_H
#define CLUA_VERSION_H

#define CLUA_VERSION "0.1.0"

#endif
