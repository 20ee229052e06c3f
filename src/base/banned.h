/*
 * banned.h - functions that are too easy to misuse (unbounded copies,
 * hidden state, silent numeric errors). Using one is a compile error.
 */
#ifndef PC_BANNED_H
#define PC_BANNED_H

#define PC_BANNED(func) sorry_##func##_is_banned_in_profconv

#undef strcpy
#define strcpy(x, y) PC_BANNED(strcpy)
#undef strcat
#define strcat(x, y) PC_BANNED(strcat)
#undef sprintf
#define sprintf(...) PC_BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) PC_BANNED(vsprintf)
#undef strtok
#define strtok(x, y) PC_BANNED(strtok)
#undef atoi
#define atoi(x) PC_BANNED(atoi)
#undef atol
#define atol(x) PC_BANNED(atol)
#undef gets
#define gets(x) PC_BANNED(gets)

#endif
