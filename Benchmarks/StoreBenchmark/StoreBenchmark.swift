@main struct PStoreBenchmark { static func main() {} }
