package dev.dedup.agent.store.embedded.disk;

import java.lang.invoke.MethodHandle;
import java.lang.reflect.Array;
import java.nio.Buffer;
import java.nio.MappedByteBuffer;
import java.util.Optional;

/**
 * Tells the kernel that the slot file's mappings are read at random: {@code madvise(MADV_RANDOM)}.
 *
 * <p>A claim touches one set in a random page of the file. When that page is not resident, the kernel by default
 * reads the pages around it too (the device's read-ahead: 128 KiB on most disks, megabytes on some volumes), and
 * the container's memory is charged for all of them. Under a memory limit smaller than the file, those neighbours
 * push out the pages claims use, and every miss reads the device's read-ahead again. With the advice a miss reads
 * its own page.
 *
 * <p>The agent is compiled for Java 17, which cannot call C; the foreign function API of Java 22 and later is found
 * at run time, through method handles. On an older Java, or a system without {@code madvise}, {@link #advise} says
 * why it did nothing, and the kernel's read-ahead applies.
 */
public final class RandomAccessAdvice {

    /** {@code MADV_RANDOM} on Linux (every architecture) and the BSDs. */
    private static final int MADV_RANDOM = 1;

    private RandomAccessAdvice() {}

    /**
     * Advises random access for the pages {@code mapping} spans.
     *
     * @return null when the kernel took the advice, else one line saying why not
     */
    public static String advise(MappedByteBuffer mapping) {
        Calls calls = Calls.INSTANCE;
        if (calls.unavailable != null) {
            return calls.unavailable;
        }
        try {
            long address = calls.address(mapping);
            long page = calls.pageSize();
            // madvise wants a page-aligned start; the mapping itself begins at the page that holds the buffer's start
            long start = address - Math.floorMod(address, page);
            long length = address + mapping.capacity() - start;
            int rc = (int) calls.madvise.invokeExact(start, length, MADV_RANDOM);
            return rc == 0
                    ? null
                    : "madvise(MADV_RANDOM) failed for " + length + " bytes at 0x" + Long.toHexString(start);
        } catch (Throwable e) {
            return "madvise(MADV_RANDOM) could not be called: " + e;
        }
    }

    /** The method handles, looked up once; {@code unavailable} says why there are none. */
    private static final class Calls {

        static final Calls INSTANCE = new Calls();

        final String unavailable;
        final MethodHandle madvise;
        final MethodHandle getpagesize;
        final MethodHandle ofBuffer;
        final MethodHandle segmentAddress;

        private Calls() {
            String why = null;
            MethodHandle advise = null;
            MethodHandle pageSize = null;
            MethodHandle buffer = null;
            MethodHandle address = null;
            if (Runtime.version().feature() < 22) {
                why = "Java " + Runtime.version().feature() + " has no foreign function API (Java 22 and later do)";
            } else {
                try {
                    Class<?> linkerType = Class.forName("java.lang.foreign.Linker");
                    Class<?> lookupType = Class.forName("java.lang.foreign.SymbolLookup");
                    Class<?> segmentType = Class.forName("java.lang.foreign.MemorySegment");
                    Class<?> layoutType = Class.forName("java.lang.foreign.MemoryLayout");
                    Class<?> valueLayoutType = Class.forName("java.lang.foreign.ValueLayout");
                    Class<?> descriptorType = Class.forName("java.lang.foreign.FunctionDescriptor");
                    Class<?> optionType = Class.forName("java.lang.foreign.Linker$Option");
                    Object linker = linkerType.getMethod("nativeLinker").invoke(null);
                    Object lookup = linkerType.getMethod("defaultLookup").invoke(linker);
                    Object javaInt = valueLayoutType.getField("JAVA_INT").get(null);
                    Object javaLong = valueLayoutType.getField("JAVA_LONG").get(null);
                    java.lang.reflect.Method find = lookupType.getMethod("find", String.class);
                    java.lang.reflect.Method of = descriptorType.getMethod("of", layoutType, layoutType.arrayType());
                    java.lang.reflect.Method downcall =
                            linkerType.getMethod("downcallHandle", segmentType, descriptorType, optionType.arrayType());
                    Object noOptions = Array.newInstance(optionType, 0);
                    Optional<?> madviseSymbol = (Optional<?>) find.invoke(lookup, "madvise");
                    Optional<?> pageSizeSymbol = (Optional<?>) find.invoke(lookup, "getpagesize");
                    if (madviseSymbol.isEmpty() || pageSizeSymbol.isEmpty()) {
                        why = "this system's C library has no madvise";
                    } else {
                        // (void *addr, size_t length, int advice) -> int: a pointer and a size_t pass as a long
                        Object[] args = (Object[]) Array.newInstance(layoutType, 3);
                        args[0] = javaLong;
                        args[1] = javaLong;
                        args[2] = javaInt;
                        advise = (MethodHandle)
                                downcall.invoke(linker, madviseSymbol.get(), of.invoke(null, javaInt, args), noOptions);
                        Object[] none = (Object[]) Array.newInstance(layoutType, 0);
                        pageSize = (MethodHandle) downcall.invoke(
                                linker, pageSizeSymbol.get(), of.invoke(null, javaInt, none), noOptions);
                        java.lang.invoke.MethodHandles.Lookup publicLookup =
                                java.lang.invoke.MethodHandles.publicLookup();
                        buffer = publicLookup.unreflect(segmentType.getMethod("ofBuffer", Buffer.class));
                        address = publicLookup.unreflect(segmentType.getMethod("address"));
                    }
                } catch (ReflectiveOperationException | RuntimeException e) {
                    why = "the foreign function API could not link madvise: " + e;
                }
            }
            this.unavailable = why;
            this.madvise = advise;
            this.getpagesize = pageSize;
            this.ofBuffer = buffer;
            this.segmentAddress = address;
        }

        long address(Buffer mapping) throws Throwable {
            return (long) segmentAddress.invoke(ofBuffer.invoke(mapping));
        }

        long pageSize() throws Throwable {
            return (int) getpagesize.invokeExact();
        }
    }
}
