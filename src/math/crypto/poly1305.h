/*
 * poly1305.h - the Poly1305 one-time authenticator of RFC 8439, section 2.5.
 *
 * Plain C (no postgres.h), tested against the RFC's vectors in
 * test/unit/test_poly1305.c.  Arithmetic in five 26-bit limbs with 64-bit
 * products and no secret-dependent branches or table lookups.
 */
#ifndef JLDP_MATH_POLY1305_H
#define JLDP_MATH_POLY1305_H

#include <stddef.h>
#include <stdint.h>

#define JL_POLY1305_KEY_BYTES 32
#define JL_POLY1305_TAG_BYTES 16

typedef struct JlPoly1305
{
	uint32_t	r[5];
	uint32_t	h[5];
	uint32_t	pad[4];
	uint8_t		buf[16];
	size_t		nbuf;
} JlPoly1305;

/* key: r (clamped here) then s, 32 bytes; a key must never be used twice */
void		jl_poly1305_init(JlPoly1305 *st, const uint8_t key[32]);
void		jl_poly1305_update(JlPoly1305 *st, const uint8_t *m, size_t n);
/* writes the tag and wipes the state */
void		jl_poly1305_final(JlPoly1305 *st, uint8_t tag[16]);

/* one call: the tag of n bytes of m under key */
void		jl_poly1305(const uint8_t key[32], const uint8_t *m, size_t n,
						uint8_t tag[16]);

/* 1 if the 16-byte tags are equal, compared in constant time */
int			jl_tag_equal(const uint8_t a[16], const uint8_t b[16]);

#endif
