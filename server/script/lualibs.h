/* lualibs.h -- the struct and cmsgpack libraries that Redis scripts may use.
 *
 * Why here: Redis embeds them in its Lua, and Debian packages neither (lua-cjson
 * and lua-bitop provide cjson and bit; lua-messagepack is a pure-Lua library
 * with another API). Both are written from their documented behaviour (the
 * Redis Lua API page and the libraries' own documentation): struct.pack,
 * struct.unpack, struct.size with the format letters < > ! x b B h H l L T i
 * I f d c s (and Redis's error words: a missing argument is "got nil"); cmsgpack.pack, cmsgpack.unpack, cmsgpack.unpack_one,
 * cmsgpack.unpack_limit with MessagePack's types (tables as arrays when their
 * keys are 1..n, else maps; numbers as the smallest integer that holds them,
 * else float 32 when exact, else float 64; nesting past 16 tables packs nil).
 *
 * Each function opens its library as the standard luaopen_* do: returns the
 * table (one result), which the caller names as a global. */
#ifndef SP_LUALIBS_H
#define SP_LUALIBS_H

#include <lua.h>

int luaopen_struct(lua_State *L);
int luaopen_cmsgpack(lua_State *L);

#endif
