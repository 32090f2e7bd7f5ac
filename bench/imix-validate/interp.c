/* A small stack-machine interpreter (switch dispatch) running a loop that
 * sums, multiplies and branches.  Written for bench/imix-validate only. */
#include <stdio.h>
#include <stdlib.h>
enum { PUSH, LOAD, STORE, ADD, SUB, MUL, LT, JZ, JMP, DUP, POP, MOD, HALT };
static long run(const int *code, long *vars)
{
	long st[64];
	int sp = 0, pc = 0;
	for (;;) {
		int op = code[pc++];
		switch (op) {
		case PUSH: st[sp++] = code[pc++]; break;
		case LOAD: st[sp++] = vars[code[pc++]]; break;
		case STORE: vars[code[pc++]] = st[--sp]; break;
		case ADD:
			sp--;
			st[sp - 1] += st[sp];
			break;
		case SUB:
			sp--;
			st[sp - 1] -= st[sp];
			break;
		case MUL:
			sp--;
			st[sp - 1] *= st[sp];
			break;
		case MOD:
			sp--;
			st[sp - 1] = st[sp] ? st[sp - 1] % st[sp] : 0;
			break;
		case LT:
			sp--;
			st[sp - 1] = st[sp - 1] < st[sp];
			break;
		case JZ:
			if (!st[--sp])
				pc = code[pc];
			else
				pc++;
			break;
		case JMP: pc = code[pc]; break;
		case DUP:
			st[sp] = st[sp - 1];
			sp++;
			break;
		case POP: sp--; break;
		case HALT: return st[sp - 1];
		}
	}
}
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 2000000;
	/* i = 0; s = 0; while (i < n) { s = s + (i*i) % 7; if (s % 3 < 1) s = s - 1; i = i + 1 } */
	int code[] = {PUSH,           0, STORE, 0, PUSH, 0,     STORE, 1,
		      /* 8 */ LOAD,   0, LOAD,  2, LT,   JZ,    52,
		      /* 15 */ LOAD,  1, LOAD,  0, LOAD, 0,     MUL,   PUSH, 7,  MOD, ADD, STORE, 1,
		      /* 28 */ LOAD,  1, PUSH,  3, MOD,  PUSH,  1,     LT,   JZ, 44,
		      /* 38 */ LOAD,  1, PUSH,  1, SUB,  STORE, 1,
		      /* 44? */ LOAD, 0, PUSH,  1, ADD,  STORE, 0,     JMP,  8,
		      /* 52 */ LOAD,  1, HALT};
	/* fix the jump targets computed by hand above */
	code[14] = 54;
	code[37] = 45;
	long vars[4] = {0, 0, n, 0};
	printf("%ld\n", run(code, vars));
	return 0;
}
