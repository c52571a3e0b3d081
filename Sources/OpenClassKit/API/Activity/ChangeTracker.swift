internal import NIOConcurrencyHelpers

/// Keeps, for one data store, the activities with unsaved changes and the one most recently started.
///
/// Activities with changes are held strongly until saved, so dropping the last reference to a changed
/// activity loses nothing.
final class ChangeTracker: Sendable {
    private struct State {
        var changed: [ObjectIdentifier: CLSActivity] = [:]
        weak var lastStarted: CLSActivity?
        /// Every activity started through the store, held weakly.
        var started: [ObjectIdentifier: WeakActivity] = [:]
    }

    private struct WeakActivity {
        weak var activity: CLSActivity?
    }

    private let state = NIOLockedValueBox(State())

    func markChanged(_ activity: CLSActivity) {
        state.withLockedValue { $0.changed[ObjectIdentifier(activity)] = activity }
    }

    func markStarted(_ activity: CLSActivity) {
        state.withLockedValue { state in
            state.lastStarted = activity
            state.started = state.started.filter { $0.value.activity != nil }
            state.started[ObjectIdentifier(activity)] = WeakActivity(activity: activity)
        }
    }

    /// The activities started through the store that are still alive.
    var startedActivities: [CLSActivity] { state.withLockedValue { $0.started.values.compactMap(\.activity) } }

    var lastStarted: CLSActivity? { state.withLockedValue { $0.lastStarted } }

    /// The activities to save now; they stay tracked until ``didSave(_:)``.
    var changedActivities: [CLSActivity] { state.withLockedValue { Array($0.changed.values) } }

    /// Stops tracking an activity that no save can write (a new attempt whose context left the tree).
    func forget(_ activity: CLSActivity) {
        state.withLockedValue { $0.changed[ObjectIdentifier(activity)] = nil }
    }

    /// Stops tracking saved activities that gained no new changes while the save ran.
    func didSave(_ activities: [CLSActivity]) {
        state.withLockedValue { state in
            for activity in activities where !activity.hasUnsavedChanges {
                state.changed[ObjectIdentifier(activity)] = nil
            }
        }
    }
}
