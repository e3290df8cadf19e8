/*
 * A stand-in for Windows' bcryptprimitives.dll, for the Wine test only (never shipped).
 *
 * Go 1.22+ programs get their random bytes from ProcessPrng in bcryptprimitives.dll
 * (Windows 10 and later). Wine 8.0, Debian 12's wine, has no such DLL, so a Go .exe aborts
 * at start ("bcryptprimitives.dll not found"). This DLL exports ProcessPrng on top of
 * advapi32's RtlGenRandom (SystemFunction036), which Wine implements. scripts/wine-test.sh
 * builds it with mingw-w64 and puts it in the test's own WINEPREFIX system32.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
    while (len > 0) {
        ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
        if (!SystemFunction036(data, n))
            return FALSE;
        data += n;
        len -= n;
    }
    return TRUE;
}
