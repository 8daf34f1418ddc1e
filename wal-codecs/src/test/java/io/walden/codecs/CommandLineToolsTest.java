package io.walden.codecs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.codec.RecordCodec;
import io.walden.testkit.SampleRecords;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The stored formats are the standard ones: what each codec stores decompresses with the reference
 * {@code lz4} and {@code zstd} command line tools, and what those tools write (with their frame
 * checksums too) decodes here. Needs both tools (Debian's {@code lz4} and {@code zstd} packages; CI
 * installs them): without them it fails, saying which is missing.
 */
final class CommandLineToolsTest {
    @TempDir
    Path directory;

    static Stream<RecordCodec> codecs() {
        return CodecRoundTripTest.codecs();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("codecs")
    void theReferenceToolDecompressesWhatTheCodecStores(final RecordCodec codec) throws Exception {
        final SplittableRandom random = new SplittableRandom(9);
        final RecordCodec.Encoder encoder = codec.newEncoder();
        for (final int length : new int[] {1, 300, 4096, 100_000}) {
            final byte[] record = SampleRecords.jsonLike(random, length);
            final UnsafeBuffer encoded = CodecRoundTripTest.encode(encoder, codec, record);
            final byte[] stored = new byte[encoded.capacity()];
            encoded.getBytes(0, stored);
            final Path file = directory.resolve("record-" + length);
            Files.write(file, stored);
            final byte[] decompressed = run(tool(codec), "-d", "-c", file.toString());
            assertArrayEquals(record, decompressed, tool(codec) + " -d read other bytes than were stored");
        }
        encoder.close();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("codecs")
    void whatTheReferenceToolWritesDecodesHere(final RecordCodec codec) throws Exception {
        final byte[] record = SampleRecords.jsonLike(new SplittableRandom(2), 5000);
        final Path file = directory.resolve("input");
        Files.write(file, record);
        final List<String> command = new ArrayList<>(List.of(tool(codec), "-c", "-q"));
        if (tool(codec).equals("lz4")) {
            // Block checksums and the stream checksum (on by default), which the codec never writes and
            // must skip.
            command.addAll(List.of("--content-size", "-BX"));
        }
        command.add(file.toString());
        final byte[] frame = run(command.toArray(String[]::new));
        final RecordCodec.Decoder decoder = codec.newDecoder();
        final UnsafeBuffer source = CodecRoundTripTest.direct(frame.length);
        source.putBytes(0, frame);
        assertEquals(record.length, decoder.decodedLength(source, 0, frame.length));
        final UnsafeBuffer target = CodecRoundTripTest.direct(record.length);
        assertEquals(record.length, decoder.decode(source, 0, frame.length, target, 0, record.length));
        final byte[] back = new byte[record.length];
        target.getBytes(0, back);
        assertArrayEquals(record, back);
        decoder.close();
    }

    private static String tool(final RecordCodec codec) {
        return codec.id() == RecordCodec.LZ4_FRAME_ID ? "lz4" : "zstd";
    }

    private static byte[] run(final String... command) throws IOException, InterruptedException {
        final Process process;
        try {
            process = new ProcessBuilder(command)
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
        } catch (final IOException ex) {
            throw new AssertionError(
                    command[0] + " is not installed: install Debian's lz4 and zstd packages (apt-get install lz4 zstd)",
                    ex);
        }
        final byte[] output = process.getInputStream().readAllBytes();
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), String.join(" ", command) + " did not end");
        assertEquals(0, process.exitValue(), String.join(" ", command) + " failed");
        return output;
    }
}
