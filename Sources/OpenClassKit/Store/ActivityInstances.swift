internal import NIOConcurrencyHelpers

/// The activities of one data store in memory: one instance per stored activity, and the tracker
/// of their unsaved changes. Shared by the data store and its context tree, so that an activity
/// reached through a file or through a context is the same object.
final class ActivityInstances: Sendable {
    /// The activities with unsaved changes, and those started.
    let tracker = ChangeTracker()
    private let byRow = NIOLockedValueBox<[Int64: WeakActivity]>([:])

    private struct WeakActivity {
        weak var activity: CLSActivity?
    }

    /// The one instance of a stored activity, refreshed with what the store holds when it exists;
    /// else made in `context`.
    func instance(for record: ActivityRecord, in context: () -> CLSContext) -> CLSActivity {
        let (activity, isNew) = byRow.withLockedValue { map -> (CLSActivity, Bool) in
            if let existing = map[record.activityID]?.activity { return (existing, false) }
            let activity = CLSActivity(record: record, context: context(), tracker: tracker)
            map[record.activityID] = WeakActivity(activity: activity)
            return (activity, true)
        }
        if !isNew {
            if let file = record.file { activity.context.fileMoved(to: file.path, isPlainFile: record.contextChain.isEmpty) }
            activity.apply(record)
        }
        return activity
    }

    /// Registers a new attempt once a save gave it its row.
    func register(_ activity: CLSActivity) {
        byRow.withLockedValue { $0[activity.activityID] = WeakActivity(activity: activity) }
    }
}
