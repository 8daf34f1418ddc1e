package io.walden.jraft;

import com.alipay.sofa.jraft.Node;
import com.alipay.sofa.jraft.Status;
import com.alipay.sofa.jraft.closure.ReadIndexClosure;
import com.alipay.sofa.jraft.conf.Configuration;
import com.alipay.sofa.jraft.entity.PeerId;
import com.alipay.sofa.jraft.util.Describer;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A {@link MultiRaftNode} in a child JVM, so that {@link MultiRaftClusterTest} can kill it with SIGKILL and
 * start it again from what it left on disk.
 *
 * <p>Arguments: the groups' configuration ({@code host:port,...}), this node's address, its directory, the
 * number of groups. Standard output carries only protocol lines, {@code "@@ " + line}: {@code READY} once
 * every group started, {@code EV <group> <event>} for each event of a group, {@code ACK <group> <id> OK}
 * or {@code ACK <group> <id> FAIL <status>} for each write, {@code RE <token> ...} answering a command.
 * Commands, one a line on standard input: {@code W <group> <id>} (write), {@code R <group> <token>} (a
 * linearizable read: {@code RE <token> OK <register>} or {@code RE <token> FAIL <status>}), {@code S
 * <group> <token>} ({@code RE <token> <register> <applied index>}), {@code SNAP <group> <token>} (a
 * snapshot, then a purge of the shared log), {@code STOP|START <group> <token>}, {@code ET <group> <ms>
 * <token>} (election timeout), {@code TL <group> <peer> <token>} (transfer leadership), {@code IDX
 * <group> <token>} ({@code RE <token> <first> <last> <node's last index> <leader>}), {@code TERM
 * <group> <index> <token>}, {@code STATS <token>} ({@code RE <token> <threads> <cpu ms> <heap MiB>}), {@code
 * D <group> <token>} (the group's node as jraft describes it, on one line: for a failure's report),
 * {@code Q} (stop cleanly and exit 0). The end of standard input halts the JVM.
 *
 * <p><b>Threading:</b> the main thread runs commands; jraft's threads report events and answers; lines are
 * written under the output stream's lock.
 */
public final class MultiRaftChild {
    private MultiRaftChild() {}

    public static void main(final String[] args) throws IOException, InterruptedException {
        final PrintStream protocol =
                new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.US_ASCII);
        System.setOut(System.err);
        final RaftPathsNode.Listener out = line -> {
            synchronized (protocol) {
                protocol.print("@@ " + line.replace('\n', ' ') + "\n");
                protocol.flush();
            }
        };
        final Configuration configuration = new Configuration();
        if (!configuration.parse(args[0])) {
            throw new IllegalArgumentException("not a configuration: " + args[0]);
        }
        final int groups = Integer.parseInt(args[3]);
        final MultiRaftNode node = new MultiRaftNode(
                configuration, PeerId.parsePeer(args[1]), Path.of(args[2]), groups, event -> out.on("EV " + event));
        for (int group = 0; group < groups; group++) {
            node.startGroup(group);
        }
        out.on("READY");
        final BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        try {
            String line;
            while ((line = commands.readLine()) != null) {
                if (line.equals("Q")) {
                    node.stop();
                    out.on("STOPPED");
                    System.exit(0);
                }
                run(node, line.split(" "), out);
            }
        } catch (final RuntimeException | Error ex) {
            ex.printStackTrace();
            out.on("EV -1 ERROR the child's command loop failed: " + ex);
        }
        Runtime.getRuntime().halt(3);
    }

    private static void run(final MultiRaftNode node, final String[] words, final RaftPathsNode.Listener out)
            throws InterruptedException {
        final String token = words[words.length - 1];
        switch (words[0]) {
            case "W" -> {
                final int group = Integer.parseInt(words[1]);
                final long id = Long.parseLong(words[2]);
                if (node.node(group) == null) {
                    out.on("ACK " + group + " " + id + " FAIL stopped");
                    return;
                }
                node.write(
                        group,
                        id,
                        status -> out.on("ACK " + group + " " + id + " " + (status.isOk() ? "OK" : "FAIL " + status)));
            }
            case "R" -> {
                final int group = Integer.parseInt(words[1]);
                node.node(group).readIndex(new byte[0], new ReadIndexClosure() {
                    @Override
                    public void run(final Status status, final long index, final byte[] context) {
                        out.on("RE " + token + " "
                                + (status.isOk()
                                        ? "OK " + node.register(group).state().encode()
                                        : "FAIL " + status));
                    }
                });
            }
            case "S" -> {
                final int group = Integer.parseInt(words[1]);
                out.on("RE " + token + " " + node.register(group).state().encode() + " "
                        + node.node(group).getLastAppliedLogIndex());
            }
            case "SNAP" -> {
                final int group = Integer.parseInt(words[1]);
                node.node(group).snapshot(status -> {
                    node.shared().groupLog().purge();
                    out.on("RE " + token + " " + (status.isOk() ? "OK" : "FAIL " + status));
                });
            }
            case "STOP" -> {
                node.stopGroup(Integer.parseInt(words[1]));
                out.on("RE " + token + " DONE");
            }
            case "START" -> {
                node.startGroup(Integer.parseInt(words[1]));
                out.on("RE " + token + " DONE");
            }
            case "ET" -> {
                node.node(Integer.parseInt(words[1])).resetElectionTimeoutMs(Integer.parseInt(words[2]));
                out.on("RE " + token + " DONE");
            }
            case "TL" -> {
                final Status status =
                        node.node(Integer.parseInt(words[1])).transferLeadershipTo(PeerId.parsePeer(words[2]));
                out.on("RE " + token + " " + status.isOk());
            }
            case "IDX" -> {
                final int group = Integer.parseInt(words[1]);
                final RaftPathsNode.RecordingLogStorage storage = node.storage(group);
                out.on("RE " + token + " " + storage.getFirstLogIndex() + " " + storage.getLastLogIndex() + " "
                        + node.node(group).getLastLogIndex() + " "
                        + node.node(group).isLeader());
            }
            case "TERM" ->
                out.on("RE " + token + " "
                        + node.storage(Integer.parseInt(words[1])).termAt(Long.parseLong(words[2])));
            case "D" -> out.on("RE " + token + " " + describe(node.node(Integer.parseInt(words[1]))));
            case "STATS" -> {
                final long cpuNs = ((com.sun.management.OperatingSystemMXBean)
                                ManagementFactory.getOperatingSystemMXBean())
                        .getProcessCpuTime();
                final Runtime runtime = Runtime.getRuntime();
                out.on("RE " + token + " " + ManagementFactory.getThreadMXBean().getThreadCount() + " "
                        + cpuNs / 1_000_000 + " " + (runtime.totalMemory() - runtime.freeMemory()) / (1 << 20));
            }
            default -> out.on("EV -1 ERROR unknown command " + String.join(" ", words));
        }
    }

    /** A group's node as jraft describes it (its replicators, log manager, ballot box...), on one line. */
    private static String describe(final Node raft) {
        if (raft == null) {
            return "stopped";
        }
        final StringWriter text = new StringWriter();
        final PrintWriter printer = new PrintWriter(text);
        raft.describe(new Describer.DefaultPrinter(printer));
        printer.flush();
        return raft.getNodeState() + " leader " + raft.getLeaderId() + " last " + raft.getLastLogIndex()
                + " committed " + raft.getLastCommittedIndex() + " applied " + raft.getLastAppliedLogIndex() + " :: "
                + text.toString().replace('\n', '|');
    }
}
