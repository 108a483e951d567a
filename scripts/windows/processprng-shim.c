/* Test equipment for scripts/test-windows, never shipped. Rust's standard library takes its
 * random seed from ProcessPrng in bcryptprimitives.dll, which Debian's Wine 8 lacks; this DLL
 * provides it on top of RtlGenRandom (advapi32's SystemFunction036), so Rust programs start under
 * that Wine. Real Windows 10+ has the real one. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG chunk = length > 0x40000000 ? 0x40000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
