import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.opensearch.analysis.common.CommonAnalysisPlugin;
import org.opensearch.common.settings.Settings;
import org.opensearch.knn.plugin.KNNPlugin;
import org.opensearch.node.InternalSettingsPreparer;
import org.opensearch.node.Node;
import org.opensearch.painless.PainlessPlugin;
import org.opensearch.plugins.Plugin;
import org.opensearch.transport.Netty4Plugin;

/**
 * One OpenSearch 2.19 node on loopback for the real-engine suites: HTTP over Netty, the english
 * analyzer (analysis-common), painless and the k-NN plugin, all loaded from the classpath, as
 * the test framework's MockNode loads them. That skips the launcher's plugin descriptors, its
 * security manager and its refusal to run as root (DESIGN.md section 5). Usage: OpenSearchTestNode <http-port> <transport-port> <home>.
 * It runs until killed; the node is closed on SIGTERM so its data folder is left consistent.
 */
public final class OpenSearchTestNode {
  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: OpenSearchTestNode <http-port> <transport-port> <home>");
      System.exit(2);
    }
    Path home = Path.of(args[2]).toAbsolutePath();
    Files.createDirectories(home.resolve("config"));
    Settings settings = Settings.builder()
        .put("path.home", home.toString())
        .put("path.data", home.resolve("data").toString())
        .put("path.logs", home.resolve("logs").toString())
        .put("cluster.name", "gcf-engines")
        .put("node.name", "gcf-engines-node")
        .put("network.host", "127.0.0.1")
        .put("http.port", args[0])
        .put("transport.port", args[1])
        .put("discovery.type", "single-node")
        // A shared CI disk may be fuller than the default watermarks allow.
        .put("cluster.routing.allocation.disk.threshold_enabled", false)
        .build();
    Node node = new ClasspathPluginsNode(settings, List.of(Netty4Plugin.class, PainlessPlugin.class, CommonAnalysisPlugin.class, KNNPlugin.class));
    node.start();
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        node.close();
      } catch (Exception error) {
        error.printStackTrace();
      }
    }));
    System.out.println("OpenSearch " + org.opensearch.Version.CURRENT + " listening on 127.0.0.1:" + args[0]);
    Thread.currentThread().join();
  }

  /** Node's own constructor for plugins given as classes (the one MockNode uses). */
  private static final class ClasspathPluginsNode extends Node {
    ClasspathPluginsNode(Settings settings, Collection<Class<? extends Plugin>> plugins) {
      super(InternalSettingsPreparer.prepareEnvironment(settings, Map.of(), null, () -> "gcf-engines-node"), plugins, true);
    }
  }
}
