@main struct PSeedSample { static func main() {} }
