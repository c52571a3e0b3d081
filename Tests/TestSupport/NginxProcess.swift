import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Debian's nginx in front of several `clsfile-server serve` processes, on loopback, as
/// `Samples/class-server/clsfile-server.nginx` puts it in front of them: one upstream of the
/// servers, a device's requests to one of them by their `Clsfile-Key`, connections kept alive, and a sync that failed on one server (killed, say) sent to
/// the next, which is safe because a sync is idempotent by its operation ids. Runs as one
/// process (`master_process off`), with its files in a folder of its own; stopped when released.
public final class NginxProcess: Sendable {
    public let process: SpawnedProcess
    /// The port it listens on, on 127.0.0.1.
    public let port: Int
    public var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Starts nginx in front of servers listening on 127.0.0.1 at `upstreams`, and waits until it listens.
    /// - Parameter chosen: The port to listen on (the one the servers were told their tokens
    ///   name); a free one picked at random when nil.
    /// - Throws: When nginx is not installed (skipped, or failed under `CI=true`), or does not start.
    public init(upstreams: [Int], port chosen: Int? = nil, in folder: URL) async throws {
        let nginx = try Tool.nginx.require()
        let home = folder.appendingPathComponent("nginx-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        var lastError = ""
        for _ in 0..<(chosen == nil ? 5 : 1) {
            let port = chosen ?? Int.random(in: 20_000..<40_000)
            let configuration = home.appendingPathComponent("nginx.conf")
            try Data(Self.configuration(upstreams: upstreams, port: port, home: home.path).utf8).write(to: configuration)
            let process = try SpawnedProcess(nginx.path, ["-p", home.path, "-c", configuration.path], in: home, name: "nginx")
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline {
                if Self.accepts(port: port) {
                    self.process = process
                    self.port = port
                    return
                }
                var raw: Int32 = 0
                if waitpid(process.pid, &raw, WNOHANG) == process.pid { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            lastError = process.errorOutput + ((try? String(contentsOf: home.appendingPathComponent("error.log"), encoding: .utf8)) ?? "")
            guard lastError.contains("in use") else { break }
        }
        throw NginxError(description: "nginx did not start: \(lastError.suffix(2000))")
    }

    deinit {
        process.signal(SIGTERM)
        process.waitBlocking(timeout: 10)
    }

    /// The configuration: the sample's upstream and proxying, without TLS, on loopback.
    static func configuration(upstreams: [Int], port: Int, home: String) -> String {
        let servers = upstreams.map { "        server 127.0.0.1:\($0) max_fails=1 fail_timeout=5s;" }.joined(separator: "\n")
        return """
            daemon off;
            master_process off;
            worker_processes 1;
            pid \(home)/nginx.pid;
            error_log \(home)/error.log warn;
            events { worker_connections 4096; }
            http {
                access_log off;
                client_body_temp_path \(home)/body;
                proxy_temp_path \(home)/proxy;
                fastcgi_temp_path \(home)/fastcgi;
                uwsgi_temp_path \(home)/uwsgi;
                scgi_temp_path \(home)/scgi;
                map $http_clsfile_key $clsfile_route {
                    ""      $request_id;
                    default $http_clsfile_key;
                }
                upstream clsfile_server {
                    hash $clsfile_route consistent;
            \(servers)
                    keepalive 64;
                }
                server {
                    listen 127.0.0.1:\(port);
                    client_max_body_size 5m;
                    proxy_http_version 1.1;
                    proxy_set_header Connection "";
                    proxy_set_header Host $host;
                    location / {
                        proxy_pass http://clsfile_server;
                    }
                    location = /v1/sync {
                        proxy_next_upstream error timeout non_idempotent;
                        proxy_pass http://clsfile_server;
                    }
                }
            }

            """
    }

    /// Whether something accepts connections on 127.0.0.1 at `port`.
    static func accepts(port: Int) -> Bool {
        guard let descriptor = try? LoopbackSocket.connected(to: port) else { return false }
        close(descriptor)
        return true
    }

    public struct NginxError: Error, CustomStringConvertible {
        public var description: String
    }
}
