/* mp.h — the master/slave layer's protocol and its parts (README.md states
 * the protocol for readers; this header is its definition).
 *
 * One process, the source (the master, the application's), drives the
 * others, the sinks (slaves), through commands over a channel
 * (mp_channel.h). Each sink answers with replies; data travels as
 * messages of their own. Tags:
 *   MP_TAG_CMD    source -> sink: a command (struct mp_cmd, its payload
 *                 inline; a payload over MP_INLINE bytes follows as a
 *                 second message on the same tag, sent at once after it);
 *   MP_TAG_REPLY  sink -> source: a reply (struct mp_reply);
 *   >= MP_TAG_DATA  the bytes of one copy, its tag chosen by the source
 *                 (unique among the copies in flight).
 *
 * Every command carries a token, the source's own (an event's address),
 * which the reply gives back. A sink runs commands in the order they come,
 * except that a copy's bytes and a kernel take their time: the sink starts
 * them and goes on with the next command (README.md, "Ordering").
 */
#ifndef VELA_MP_H
#define VELA_MP_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "drivers/mp/mp_channel.h"

#define MP_TAG_CMD 1
#define MP_TAG_REPLY 2
#define MP_TAG_DATA 16

/* Commands (struct mp_cmd.op). a[] as noted; "reply" is what the sink
 * answers, ACK unless said. */
enum mp_op
{
	MP_CMD_START = 1,	/* a session starts: a[0] threads to run kernels on */
	MP_CMD_STOP,		/* the session ends: threads stopped, buffers left freed */
	MP_CMD_EXIT,		/* leave the job (no reply) */
	MP_CMD_ALLOC,		/* a[0] bytes; reply value: the address, 0 if it failed */
	MP_CMD_FREE,		/* a[0] address, a[1] bytes (no reply) */
	MP_CMD_RECV_HOST,	/* bytes from the source into a[0]: a[1] blocksize, a[2] nblocks, a[3] ld; tag; reply once received */
	MP_CMD_SEND_HOST,	/* bytes at a[0] (same layout) to the source on tag (no reply: the source's receive ends it) */
	MP_CMD_RECV_SINK,	/* as RECV_HOST, from sink peer; reply once received */
	MP_CMD_SEND_SINK,	/* as SEND_HOST, to sink peer (no reply) */
	MP_CMD_COPY,		/* within the sink: a[0] src, a[1] dst, a[2] blocksize, a[3] nblocks, a[4] ld_src, a[5] ld_dst */
	MP_CMD_EXECUTE,		/* a[0] thread; payload: struct mp_exec and what follows it; reply DONE */
	MP_CMD_PING,		/* are you there */
	MP_CMD_NOPS
};

/* Replies (struct mp_reply.kind). */
enum mp_reply_kind
{
	MP_REP_INFO = 1,	/* unsolicited, once, at boot: value cores, value2 memory bytes, text host name */
	MP_REP_ACK,		/* a command done: status 0 or a negative errno, value as the command says */
	MP_REP_DONE,		/* a kernel ended: status, elapsed_us; text: why it failed */
	MP_REP_DYING,		/* the sink is going down (a signal, exit()): text says why */
};

/* Inline payload carried by a command message; more comes after it. */
#define MP_INLINE 4096

struct mp_cmd
{
	uint32_t op;
	uint32_t tag;		/* the data's tag (copies) */
	int32_t peer;		/* the other sink (RECV_SINK, SEND_SINK) */
	uint32_t payload;	/* payload bytes, inline up to MP_INLINE */
	uint64_t token;		/* given back in the reply */
	uint64_t a[6];
};

struct mp_cmd_msg
{
	struct mp_cmd cmd;
	char inline_payload[MP_INLINE];
};

struct mp_reply
{
	uint32_t kind;
	int32_t status;
	uint64_t token;
	uint64_t value;
	uint64_t value2;
	double elapsed_us;
	char text[256];
};

/* EXECUTE's payload: this header, the function's name (name_len bytes,
 * with its NUL), arg_size bytes of cl_arg, then nbuffers times a uint32_t
 * size and that many bytes of interface (the buffer's interface on the
 * sink's node: its pointers are the sink's). */
struct mp_exec
{
	uint32_t nbuffers;
	uint32_t name_len;
	uint64_t arg_size;
};

/* ------------------------------------------------------------------ */
/* The channel (mp_loader.c): loaded once per process, kept until exit. */

/* The loaded channel, NULL until then. */
extern const struct mp_channel *mp_chan;
/* This process's rank, the job's size and the master's rank. */
extern int mp_rank, mp_size, mp_master;

/* Sink (mp_sink.c): serves the source until told to exit; never returns. */
void mp_sink_main(void) __attribute__((noreturn));

/* Source (mp_source.c). Boot: waits for every sink's INFO. */
int mp_source_boot(void);
/* Ends the job for the sinks (EXIT to each) and leaves the channel. */
void mp_source_exit(void);
/* Whether the application initialised MPI itself (mp_loader.c): it then
 * finalises it too, so the sinks leave at the first starpu_shutdown. */
extern int mp_app_owns_channel;

#endif /* VELA_MP_H */
