//! A game is a tokio task that owns its [`Session`], fed by an mpsc channel; it commits every
//! change to the store before broadcasting the new state to the game's connections.

use std::sync::Arc;

use axum::extract::ws::Utf8Bytes;
use serde_json::Value;
use tokio::sync::{broadcast, mpsc, oneshot};

use crate::{
    error::Error,
    online::RoomEnv,
    session::{Action, Session},
};

/// A state sent to every connection of a game; `origin` is the connection that caused it (it
/// gets the state as its direct reply instead). The text is serialized once and shared by every
/// connection (and the origin's reply).
#[derive(Debug)]
pub(crate) struct Broadcast {
    pub(crate) origin: u64,
    pub(crate) text: Utf8Bytes,
}

impl Broadcast {
    /// Sends `text` to every connection of `bcast` but `origin`'s; returns the shared text, for
    /// `origin`'s reply. No receiver is fine: nobody else is watching.
    pub(crate) fn send(
        bcast: &broadcast::Sender<Arc<Broadcast>>,
        origin: u64,
        text: String,
    ) -> Utf8Bytes {
        let text = Utf8Bytes::from(text);
        let _ = bcast.send(Arc::new(Broadcast {
            origin,
            text: text.clone(),
        }));
        text
    }
}

enum Cmd {
    Act {
        action: Action,
        version: u64,
        origin: u64,
        reply: oneshot::Sender<Result<Utf8Bytes, Error>>,
    },
    Hint {
        version: u64,
        reply: oneshot::Sender<Result<Value, Error>>,
    },
    State {
        cause: &'static str,
        reply: oneshot::Sender<Value>,
    },
    Record {
        reply: oneshot::Sender<Value>,
    },
    Version {
        reply: oneshot::Sender<u64>,
    },
}

/// The handle of a running game task.
#[derive(Clone, Debug)]
pub(crate) struct RoomHandle {
    tx: mpsc::Sender<Cmd>,
    bcast: broadcast::Sender<Arc<Broadcast>>,
    pub(crate) token_hash: String,
}

impl RoomHandle {
    /// Starts the task of `session`, whose first `persisted` steps are already stored.
    pub(crate) fn spawn(
        session: Session,
        persisted: usize,
        env: RoomEnv,
        token_hash: String,
    ) -> RoomHandle {
        let (tx, rx) = mpsc::channel(64);
        let (bcast, _) = broadcast::channel(64);
        tokio::spawn(run(session, persisted, env, rx, bcast.clone()));
        RoomHandle {
            tx,
            bcast,
            token_hash,
        }
    }

    /// Whether the task has stopped (idle without connections); the registry then reloads it.
    pub(crate) fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }

    pub(crate) fn subscribe(&self) -> broadcast::Receiver<Arc<Broadcast>> {
        self.bcast.subscribe()
    }

    async fn ask<T>(&self, cmd: impl FnOnce(oneshot::Sender<T>) -> Cmd) -> Result<T, Error> {
        crate::ask(&self.tx, "game task", cmd).await
    }

    pub(crate) async fn act(
        &self,
        action: Action,
        version: u64,
        origin: u64,
    ) -> Result<Utf8Bytes, Error> {
        self.ask(|reply| Cmd::Act {
            action,
            version,
            origin,
            reply,
        })
        .await?
    }

    pub(crate) async fn hint(&self, version: u64) -> Result<Value, Error> {
        self.ask(|reply| Cmd::Hint { version, reply }).await?
    }

    pub(crate) async fn state(&self, cause: &'static str) -> Result<Value, Error> {
        self.ask(|reply| Cmd::State { cause, reply }).await
    }

    /// The game's version, without building a state (error replies carry it).
    pub(crate) async fn version(&self) -> Result<u64, Error> {
        self.ask(|reply| Cmd::Version { reply }).await
    }

    pub(crate) async fn record(&self) -> Result<Value, Error> {
        self.ask(|reply| Cmd::Record { reply }).await
    }
}

/// A game task with no command and no connection for this long stops (it reloads on demand).
const IDLE: std::time::Duration = std::time::Duration::from_secs(15 * 60);

async fn run(
    mut session: Session,
    mut persisted: usize,
    env: RoomEnv,
    mut rx: mpsc::Receiver<Cmd>,
    bcast: broadcast::Sender<Arc<Broadcast>>,
) {
    loop {
        let cmd = match tokio::time::timeout(IDLE, rx.recv()).await {
            Ok(Some(cmd)) => cmd,
            Ok(None) => break,
            // Idle and nobody watching: stop; the game is in the store and reloads on demand.
            Err(_) if bcast.receiver_count() == 0 => break,
            Err(_) => continue,
        };
        match cmd {
            Cmd::Act {
                action,
                version,
                origin,
                reply,
            } => {
                let backup = session.checkpoint(action);
                let result = match session.act(action, version) {
                    Err(e) => Err(e),
                    Ok(events) => {
                        let (keep, append) = session.unsaved(persisted);
                        match env
                            .store
                            .sync_plies(session.id(), keep, &append, session.is_over(), None)
                            .await
                        {
                            Ok(()) => {
                                persisted = keep + append.len();
                                env.spare.summarize(&mut session);
                                session
                                    .state_text(action.cause(), events)
                                    .map(|text| Broadcast::send(&bcast, origin, text))
                            }
                            Err(e) => {
                                if let Err(r) = session.go_back(backup) {
                                    tracing::error!(error = %r, "taking back an uncommitted move");
                                }
                                Err(e)
                            }
                        }
                    }
                };
                let _ = reply.send(result);
                env.spare.rank_ahead(&mut session);
            }
            Cmd::Hint { version, reply } => {
                let _ = reply.send(session.hint(version));
            }
            Cmd::State { cause, reply } => {
                let _ = reply.send(session.state(cause, Vec::new()));
            }
            Cmd::Record { reply } => {
                let _ = reply.send(session.record_json());
            }
            Cmd::Version { reply } => {
                let _ = reply.send(session.version());
            }
        }
    }
}
