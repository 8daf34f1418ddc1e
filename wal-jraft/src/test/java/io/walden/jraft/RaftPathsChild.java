package io.walden.jraft;

import com.alipay.sofa.jraft.conf.Configuration;
import com.alipay.sofa.jraft.entity.PeerId;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A {@link RaftPathsNode} in a child JVM, so that {@link RaftPathsClusterTest} can kill it with SIGKILL
 * and restart it from what it left on disk.
 *
 * <p>Arguments: storage kind, the group's configuration ({@code host:port,...}), this node's address,
 * its directory. Standard output carries only protocol lines, each {@code "@@ " + event}: the node's
 * events ({@link RaftPathsNode.Listener}), {@code READY} once the node started, {@code ACK <id> OK} or
 * {@code ACK <id> FAIL <status>} for each write, {@code STATE <register state> <last applied index>}.
 * Anything else the JVM would print goes to standard error. Commands, one a line on standard input:
 * {@code W <id>} (write), {@code S} (report the state), {@code Q} (stop cleanly and exit 0). The end of
 * standard input (the test is gone) halts the JVM.
 *
 * <p><b>Threading:</b> the main thread reads commands; jraft's threads report events; lines are written
 * under the output stream's lock.
 */
public final class RaftPathsChild {
    private RaftPathsChild() {}

    public static void main(final String[] args) throws IOException, InterruptedException {
        final PrintStream protocol =
                new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.US_ASCII);
        System.setOut(System.err);
        final RaftPathsNode.Listener listener = event -> {
            synchronized (protocol) {
                protocol.print("@@ " + event + "\n");
                protocol.flush();
            }
        };
        final Configuration configuration = new Configuration();
        if (!configuration.parse(args[1])) {
            throw new IllegalArgumentException("not a configuration: " + args[1]);
        }
        final PeerId peer = PeerId.parsePeer(args[2]);
        final RaftPathsNode node = RaftPathsNode.start(args[0], configuration, peer, Path.of(args[3]), listener);
        listener.on("READY");
        final BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        try {
            String line;
            while ((line = commands.readLine()) != null) {
                if (line.startsWith("W ")) {
                    final long id = Long.parseLong(line.substring(2).trim());
                    node.write(
                            id,
                            status -> listener.on("ACK " + id + " "
                                    + (status.isOk() ? "OK" : ("FAIL " + status).replace('\n', ' '))));
                } else if (line.equals("S")) {
                    listener.on(
                            "STATE " + node.state().encode() + " " + node.node().getLastAppliedLogIndex());
                } else if (line.equals("Q")) {
                    node.stop();
                    listener.on("STOPPED");
                    System.exit(0);
                }
            }
        } catch (final RuntimeException | Error ex) {
            ex.printStackTrace();
            listener.on("ERROR the child's command loop failed: " + ex);
        }
        Runtime.getRuntime().halt(3);
    }
}
