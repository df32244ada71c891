"""The full rules of Dékabès for the rules panel, in English, Spanish, Russian and Malay.

Written from the project's rules (RULES.md) and the original rule cards (Spanish,
Russian, Malay). ``RULES[lang]`` is a list of ``(heading, [paragraphs])``; a paragraph
starting with "• " is drawn as a bullet.
"""

from __future__ import annotations

RULES: dict[str, list[tuple[str, list[str]]]] = {
    "en": [
        (
            "1. Table and tiles",
            [
                "One double-six set: 28 tiles, 0-0 to 6-6. A tile's pips are the sum of its two "
                "numbers. A double shows the same number twice (there are 7 doubles).",
                "Four seats, numbered 1 to 4. Turn order 1 → 2 → 3 → 4 → 1 runs counter-clockwise: "
                "from your seat, the next player sits on your right, your partner opposite, the "
                "previous player on your left.",
                "Fixed partnerships sit opposite: team A = seats 1 and 3, team B = seats 2 and 4.",
                "Every hand all 28 tiles are shuffled and dealt, 7 to each seat. There is no "
                "boneyard and no drawing.",
            ],
        ),
        (
            "2. Accepting the deal",
            [
                "Each seat looks at its own hand privately and accepts it.",
                "A seat holding five or more doubles may instead claim a redeal: all 28 tiles are "
                "shuffled again, all four hands are dealt anew and everybody accepts again. It is a "
                "right, never automatic: a player may keep such a hand. A computer seat always "
                "claims when it is entitled. A redeal may be claimed again after a redeal.",
                "Play starts when all four seats have accepted the same deal.",
            ],
        ),
        (
            "3. Who opens",
            [
                "• First hand of a match: the seat holding 6-6 opens, and must open with 6-6.",
                "• Every later hand: the team that won the previous hand chooses which of its two "
                "members opens; that seat may open with any tile.",
                "• After a tied block: the team that opened the tied hand chooses again.",
                "The choice is made by one representative of the team, who sees only their own "
                "hand: after a domino, the player who emptied their hand; after a won block, the "
                "partner with the lower pip count (the lower seat number if equal); after a tie, "
                "the seat that opened the tied hand. Choosing the partner hands the device over "
                "privately. These are screen conventions: they never change the score.",
            ],
        ),
        (
            "4. Play",
            [
                "The opener places one tile; it forms a line with two open ends.",
                "In turn order each seat must play a tile whose number matches an open end, "
                "attaching it there. If you can play, you must; if you cannot, you pass. There is "
                "no voluntary pass and no drawing.",
                "The layout is a single line: doubles are placed in line like any other tile (drawn "
                "across). There are no spinners and no branches.",
                "When a tile matches both ends (ends 3 and 5 with tile 3-5, or ends 3 and 3 with "
                "tile 3-4) the player chooses the end.",
            ],
        ),
        (
            "5. End of a hand",
            [
                "• Domino: a seat plays its last tile. Its team wins the hand.",
                "• Block: four passes in a row. Every seat counts the pips left in its own hand; the "
                "lowest individual count wins for its team (partners' counts are never added). If "
                "seats of both teams share the lowest count, the hand is a tie.",
                "At the end of every hand all four hands are revealed — never before.",
            ],
        ),
        (
            "6. Scoring",
            [
                "The match keeps a base: 1 normally, 2 for the first win after a tie. Further ties "
                "in a row do not raise it above 2. Any win puts it back to 1.",
                "A win by block, or by domino with an ordinary last tile, scores the base.",
                "Dékabès: the hand is won by domino, the last tile is not a double, and before it "
                "was played it could legally be attached to each of the two open ends — also when "
                "both ends show the same number. It scores twice the base: 2, or 4 after a tie. "
                'Nothing else is required (no "hard ends"). A double never makes a Dékabès.',
                "The winning team adds its points; the other team's score goes back to 0. A tie "
                "changes neither score.",
                "The first team to reach 4 or more points wins the match.",
            ],
        ),
        (
            "7. Table conventions",
            [
                "• Tournament option without signals: no gestures, no messages to your partner.",
                "• Privacy: nobody sees another seat's tiles, the shuffle or a future deal until the "
                "hand ends. Computer players and hints know only what a seat knows: its own hand, "
                "the line, the tiles played, tile counts and passes.",
                "• Selecting a tile and asking for a hint only preview a move. Nothing is played "
                "until you confirm.",
                "• Opening the rules or the log pauses the computer players until it is closed.",
                "• Undo takes back the last human action together with the computer responses that "
                "followed it; Redo restores exactly the same actions. A new action after an undo "
                "drops what could have been redone.",
                "• Restart hand replays the current hand from its start: the same deal (also one "
                "that came from an accepted redeal), with the scores and base it began with.",
                "• New game starts a new match: scores 0, base 1, a fresh deal, 6-6 opens.",
                "• No timers, no bets, no physical forfeits.",
            ],
        ),
        (
            "8. Controls",
            [
                "Play directly on the tiles and the board with mouse or touch: tap a tile to see "
                "where it goes (ghost tiles), then tap an end or a ghost to play it; or drag the "
                "tile onto an end.",
                "Keyboard aid: ←/→ choose a tile, ↑/↓ choose the left or right end, Enter plays, "
                "Esc cancels; H hint, U undo, Y redo, R rules, L log, G language, M sound, S speed.",
            ],
        ),
        (
            "Worked examples",
            [
                "• Ends 4 and 6, last tile 4-6 → Dékabès: 2 points (4 after a tie).",
                "• Ends 2 and 2, last tile 2-5 → Dékabès (the same number on both ends counts).",
                "• Ends 2 and 2, last tile 2-2 → ordinary win: the base (a double never counts).",
                "• Ends 1 and 5, last tile 1-3 → fits one end only: the base.",
                "• Block with counts 3 / 7 / 3 / 9 (seats 1–4): team A wins the base; seat 1 "
                "represents (lower seat).",
                "• Block with counts 5 / 5 / 8 / 9: seats 1 and 2 share the minimum → tie: scores "
                "unchanged, next base 2, the team that opened chooses the next opener.",
                "• Score A 3, B 0; B wins a Dékabès after a tie → B gets 4, A goes to 0, B wins.",
            ],
        ),
    ],
    "es": [
        (
            "1. Mesa y fichas",
            [
                "Un juego doble seis: 28 fichas, del 0-0 al 6-6. Los puntos de una ficha son la suma "
                "de sus dos números. Un doble muestra dos veces el mismo número (hay 7 dobles).",
                "Cuatro asientos, numerados del 1 al 4. El turno 1 → 2 → 3 → 4 → 1 va en sentido "
                "antihorario: desde tu asiento, el siguiente está a tu derecha, tu compañero "
                "enfrente y el anterior a tu izquierda.",
                "Parejas fijas sentadas frente a frente: pareja A = asientos 1 y 3, pareja B = "
                "asientos 2 y 4.",
                "En cada mano se mezclan las 28 fichas y se reparten 7 a cada asiento. No hay pozo "
                "ni se roba.",
            ],
        ),
        (
            "2. Aceptar el reparto",
            [
                "Cada asiento mira su mano en privado y la acepta.",
                "Quien tiene cinco dobles o más puede, en cambio, exigir un nuevo reparto: se mezclan "
                "de nuevo las 28 fichas, se reparten las cuatro manos y todos vuelven a aceptar. Es "
                "un derecho, nunca automático: una persona puede quedarse esa mano. El ordenador lo "
                "exige siempre que puede. Tras un nuevo reparto se puede exigir otro.",
                "El juego empieza cuando los cuatro asientos han aceptado el mismo reparto.",
            ],
        ),
        (
            "3. Quién sale",
            [
                "• Primera mano de la partida: sale quien tiene el 6-6, y debe salir con el 6-6.",
                "• Manos siguientes: la pareja que ganó la mano anterior elige cuál de sus dos "
                "miembros sale; ese asiento puede salir con cualquier ficha.",
                "• Tras un bloqueo empatado: vuelve a elegir la pareja que salió en la mano empatada.",
                "Elige un representante de la pareja, que ve solo su propia mano: tras un dominó, "
                "quien vació su mano; tras un bloqueo ganado, el compañero con menos puntos (el "
                "asiento menor si empatan); tras un empate, quien salió en la mano empatada. Elegir "
                "al compañero provoca un relevo privado del dispositivo. Son convenciones de "
                "pantalla: nunca cambian el marcador.",
            ],
        ),
        (
            "4. El juego",
            [
                "Quien sale coloca una ficha; forma una línea con dos extremos abiertos.",
                "Por turno, cada asiento debe jugar una ficha cuyo número coincida con un extremo "
                "abierto y colocarla allí. Si puedes jugar, debes hacerlo; si no puedes, pasas. No "
                "hay pase voluntario ni robo.",
                "Se juega en una sola línea: los dobles se colocan en la línea como cualquier otra "
                "ficha (de través). No hay bifurcaciones.",
                "Si una ficha encaja en ambos extremos (extremos 3 y 5 con el 3-5, o 3 y 3 con el "
                "3-4), el jugador elige el extremo.",
            ],
        ),
        (
            "5. Fin de la mano",
            [
                "• Dominó: un asiento juega su última ficha. Gana la mano su pareja.",
                "• Bloqueo: cuatro pases seguidos. Cada asiento cuenta los puntos que le quedan; gana "
                "para su pareja el mínimo individual (nunca se suman los de la pareja). Si asientos "
                "de ambas parejas comparten el mínimo, la mano es empate.",
                "Al final de cada mano se descubren las cuatro manos; nunca antes.",
            ],
        ),
        (
            "6. Puntuación",
            [
                "La partida lleva una base: 1 normalmente, 2 para la primera victoria tras un "
                "empate. Más empates seguidos no la suben de 2. Cualquier victoria la devuelve a 1.",
                "Ganar por bloqueo, o por dominó con una última ficha corriente, da la base.",
                "Dékabès: la mano se gana por dominó, la última ficha no es doble y, antes de jugarla, "
                "podía colocarse legalmente en cada uno de los dos extremos abiertos, aunque muestren "
                "el mismo número. Vale el doble de la base: 2, o 4 tras un empate. No se exige nada "
                "más (sin extremos duros). Un doble nunca hace Dékabès.",
                "La pareja ganadora suma sus puntos y el marcador de la otra vuelve a 0. Un empate no "
                "cambia ningún marcador.",
                "Gana la partida la primera pareja que llega a 4 puntos o más.",
            ],
        ),
        (
            "7. Convenciones de la mesa",
            [
                "• Opción de torneo sin señas: ni gestos ni mensajes al compañero.",
                "• Privacidad: nadie ve las fichas de otro asiento, la mezcla ni un reparto futuro "
                "hasta que acaba la mano. Ordenadores y pistas saben solo lo que sabe un asiento: su "
                "mano, la línea, las fichas jugadas, cuántas fichas tiene cada uno y los pases.",
                "• Elegir una ficha y pedir pista solo previsualizan la jugada. No se juega nada hasta "
                "confirmar.",
                "• Abrir las reglas o el registro pausa a los ordenadores hasta cerrarlo.",
                "• Deshacer retira la última acción humana junto con las respuestas del ordenador que "
                "la siguieron; Rehacer restaura exactamente las mismas. Una acción nueva tras deshacer "
                "descarta lo que se podía rehacer.",
                "• Reiniciar mano vuelve a jugar la mano actual desde el principio: el mismo reparto "
                "(también el de un nuevo reparto aceptado), con el marcador y la base de entonces.",
                "• Nueva partida empieza de cero: marcador 0, base 1, reparto nuevo, sale el 6-6.",
                "• Sin límite de tiempo, apuestas ni castigos físicos.",
            ],
        ),
        (
            "8. Controles",
            [
                "Juega directamente sobre las fichas y el tablero con ratón o toque: toca una ficha "
                "para ver dónde va (fichas fantasma) y toca un extremo o un fantasma para jugarla; o "
                "arrastra la ficha hasta un extremo.",
                "Ayuda de teclado: ←/→ elige ficha, ↑/↓ elige extremo izquierdo o derecho, Intro "
                "juega, Esc cancela; H pista, U deshacer, Y rehacer, R reglas, L registro, G idioma, "
                "M sonido, S velocidad.",
            ],
        ),
        (
            "Ejemplos",
            [
                "• Extremos 4 y 6, última ficha 4-6 → Dékabès: 2 puntos (4 tras empate).",
                "• Extremos 2 y 2, última ficha 2-5 → Dékabès (el mismo número en ambos extremos cuenta).",
                "• Extremos 2 y 2, última ficha 2-2 → victoria corriente: la base (un doble nunca cuenta).",
                "• Extremos 1 y 5, última ficha 1-3 → encaja solo en un extremo: la base.",
                "• Bloqueo con 3 / 7 / 3 / 9 (asientos 1–4): gana la base la pareja A; representa el "
                "asiento 1 (el menor).",
                "• Bloqueo con 5 / 5 / 8 / 9: los asientos 1 y 2 comparten el mínimo → empate: "
                "marcador igual, próxima base 2, elige la pareja que salió.",
                "• Marcador A 3, B 0; B gana un Dékabès tras empate → B suma 4, A vuelve a 0, gana B.",
            ],
        ),
    ],
    "ru": [
        (
            "1. Стол и кости",
            [
                "Один набор «дубль шесть»: 28 костей, от 0-0 до 6-6. Очки кости — сумма двух её "
                "чисел. Дубль — кость с одинаковыми числами (всего 7 дублей).",
                "Четыре места с номерами от 1 до 4. Очерёдность 1 → 2 → 3 → 4 → 1 идёт против "
                "часовой стрелки: с вашего места следующий игрок сидит справа, партнёр — напротив, "
                "предыдущий — слева.",
                "Постоянные пары сидят напротив: команда A — места 1 и 3, команда B — места 2 и 4.",
                "В каждом коне все 28 костей перемешиваются и раздаются по 7 на каждое место. Базара "
                "и добора нет.",
            ],
        ),
        (
            "2. Приём раздачи",
            [
                "Каждый игрок смотрит свои кости без свидетелей и принимает раздачу.",
                "Владелец не менее пяти дублей вместо этого может потребовать пересдачу: все 28 "
                "костей снова перемешиваются, четыре руки раздаются заново, и все снова принимают "
                "раздачу. Это право, а не автоматическое правило: человек может оставить такие "
                "кости. Компьютер требует пересдачу всегда, когда имеет право. После пересдачи её "
                "можно потребовать снова.",
                "Игра начинается, когда все четыре места приняли одну и ту же раздачу.",
            ],
        ),
        (
            "3. Кто начинает",
            [
                "• Первый кон матча: начинает владелец дубля 6-6, и начинать нужно именно с 6-6.",
                "• Каждый следующий кон: команда, выигравшая прошлый кон, выбирает, кто из двух "
                "партнёров начинает; он может начать любой костью.",
                "• После ничьей в «рыбе»: снова выбирает команда, начинавшая ничейный кон.",
                "Выбор делает представитель команды, видящий только свои кости: после домино — "
                "игрок, освободивший руку; после выигранной «рыбы» — партнёр с меньшим остатком "
                "очков (при равенстве — меньший номер места); после ничьей — начинавший ничейный кон. "
                "Если выбран партнёр, устройство передаётся ему без свидетелей. Это соглашения "
                "интерфейса: на счёт они не влияют.",
            ],
        ),
        (
            "4. Ход игры",
            [
                "Начинающий кладёт одну кость; получается линия с двумя открытыми концами.",
                "По очереди каждый обязан приставить к открытому концу кость с совпадающим числом. "
                "Можете сходить — обязаны; не можете — пас. Добровольного паса и добора нет.",
                "Кости выкладываются в одну линию: дубли ставятся в линию, как любые другие кости "
                "(поперёк). Ответвлений нет.",
                "Если кость подходит к обоим концам (концы 3 и 5 и кость 3-5 или концы 3 и 3 и кость "
                "3-4), игрок сам выбирает конец.",
            ],
        ),
        (
            "5. Конец кона",
            [
                "• Домино: игрок выкладывает последнюю кость. Кон выигрывает его команда.",
                "• «Рыба» (блок): четыре паса подряд. Каждый считает очки на оставшихся у него "
                "костях; выигрывает для своей команды наименьший личный остаток (очки партнёров не "
                "складываются). Если минимум у игроков обеих команд — ничья.",
                "В конце каждого кона все четыре руки раскрываются — и никогда раньше.",
            ],
        ),
        (
            "6. Подсчёт очков",
            [
                "В матче есть база: обычно 1, после ничьей — 2 для первой победы. Повторные ничьи "
                "не поднимают её выше 2. Любая победа возвращает базу к 1.",
                "Победа «рыбой» или домино обычной последней костью приносит базу.",
                "Dékabès: кон выигран домино, последняя кость — не дубль, и перед ходом её можно было "
                "законно приставить к каждому из двух открытых концов — даже если на концах "
                "одинаковые числа. Это двойная база: 2 очка, после ничьей — 4. Больше ничего не "
                "требуется («жёстких концов» нет). Дубль никогда не даёт Dékabès.",
                "Победившая команда добавляет очки, а счёт соперников обнуляется. Ничья не меняет "
                "счёт.",
                "Матч выигрывает команда, первой набравшая 4 очка или больше.",
            ],
        ),
        (
            "7. Правила стола",
            [
                "• Турнирный вариант без сигналов: никаких жестов и сообщений партнёру.",
                "• Тайна: никто не видит чужих костей, перемешивания и будущих раздач до конца кона. "
                "Компьютер и подсказка знают только то, что знает место: свои кости, линию, "
                "сыгранные кости, число костей у каждого и пасы.",
                "• Выбор кости и подсказка лишь показывают ход заранее. Ничего не сыграно, пока вы "
                "не подтвердите.",
                "• Открытые правила или журнал ставят компьютер на паузу до закрытия.",
                "• «Отменить» забирает последнее действие человека вместе со всеми ответами "
                "компьютера после него; «Повторить» возвращает ровно те же действия. Новое действие "
                "после отмены стирает то, что можно было повторить.",
                "• «Кон заново» переигрывает текущий кон с начала: та же раздача (в том числе "
                "полученная после принятой пересдачи), тот же счёт и та же база, что были в начале.",
                "• «Новая игра» начинает новый матч: счёт 0, база 1, новая раздача, начинает 6-6.",
                "• Без таймеров, ставок и физических наказаний.",
            ],
        ),
        (
            "8. Управление",
            [
                "Играйте прямо на костях и поле мышью или касанием: коснитесь кости, чтобы увидеть, "
                "куда она встанет (призрачные кости), затем коснитесь конца или призрака; или "
                "перетащите кость к концу.",
                "Клавиатура: ←/→ — выбор кости, ↑/↓ — левый или правый конец, Enter — ход, Esc — "
                "отмена; H подсказка, U отменить, Y повторить, R правила, L журнал, G язык, M звук, "
                "S скорость.",
            ],
        ),
        (
            "Примеры",
            [
                "• Концы 4 и 6, последняя кость 4-6 → Dékabès: 2 очка (4 после ничьей).",
                "• Концы 2 и 2, последняя кость 2-5 → Dékabès (одинаковые числа на концах считаются).",
                "• Концы 2 и 2, последняя кость 2-2 → обычная победа: база (дубль не считается).",
                "• Концы 1 и 5, последняя кость 1-3 → подходит только к одному концу: база.",
                "• «Рыба», остатки 3 / 7 / 3 / 9 (места 1–4): команда A получает базу; "
                "представляет место 1 (меньший номер).",
                "• «Рыба», остатки 5 / 5 / 8 / 9: минимум у мест 1 и 2 → ничья: счёт прежний, "
                "следующая база 2, выбирает команда, начинавшая кон.",
                "• Счёт A 3, B 0; B выигрывает Dékabès после ничьей → у B 4, у A 0, B выиграла матч.",
            ],
        ),
    ],
    "ms": [
        (
            "1. Meja dan batu",
            [
                "Satu set kembar enam: 28 batu, 0-0 hingga 6-6. Mata sesebuah batu ialah jumlah dua "
                "nombornya. Batu kembar menunjukkan nombor yang sama dua kali (ada 7 kembar).",
                "Empat tempat, bernombor 1 hingga 4. Giliran 1 → 2 → 3 → 4 → 1 mengikut arah lawan "
                "jam: dari tempat anda, pemain seterusnya di kanan, pasangan di hadapan, pemain "
                "sebelumnya di kiri.",
                "Pasangan tetap duduk bertentangan: pasukan A = tempat 1 dan 3, pasukan B = tempat 2 "
                "dan 4.",
                "Setiap tangan, semua 28 batu dikocok dan diagihkan, 7 bagi setiap tempat. Tiada "
                "longgokan dan tiada cabutan.",
            ],
        ),
        (
            "2. Menerima agihan",
            [
                "Setiap tempat melihat tangannya secara peribadi dan menerimanya.",
                "Tempat yang memegang lima kembar atau lebih boleh menuntut agihan semula: semua 28 "
                "batu dikocok lagi, empat tangan diagihkan baharu dan semua menerima sekali lagi. Ini "
                "hak, bukan automatik: pemain boleh menyimpan tangan itu. Komputer sentiasa menuntut "
                "jika layak. Selepas agihan semula, tuntutan boleh dibuat lagi.",
                "Permainan bermula apabila keempat-empat tempat menerima agihan yang sama.",
            ],
        ),
        (
            "3. Siapa membuka",
            [
                "• Tangan pertama perlawanan: pemegang 6-6 membuka, dan mesti membuka dengan 6-6.",
                "• Setiap tangan berikutnya: pasukan yang memenangi tangan sebelumnya memilih ahli "
                "mana yang membuka; tempat itu boleh membuka dengan batu apa pun.",
                "• Selepas buntu seri: pasukan yang membuka tangan seri itu memilih lagi.",
                "Pilihan dibuat oleh seorang wakil pasukan yang hanya melihat tangan sendiri: selepas "
                "domino, pemain yang mengosongkan tangan; selepas buntu yang dimenangi, pasangan "
                "dengan mata lebih rendah (nombor tempat lebih kecil jika sama); selepas seri, tempat "
                "yang membuka tangan seri. Memilih pasangan bermaksud peranti diserahkan secara "
                "peribadi. Ini aturan antara muka sahaja: tidak menukar mata.",
            ],
        ),
        (
            "4. Permainan",
            [
                "Pembuka meletakkan satu batu; ia membentuk barisan dengan dua hujung terbuka.",
                "Mengikut giliran, setiap tempat mesti bermain batu yang nombornya sepadan dengan "
                "hujung terbuka dan menyambungnya di situ. Jika boleh main, anda mesti main; jika "
                "tidak, anda pas (giliran dilangkau). Tiada pas sukarela dan tiada cabutan.",
                "Susunan ialah satu barisan: batu kembar diletakkan dalam barisan seperti batu lain "
                "(melintang). Tiada cabang.",
                "Jika batu sepadan dengan kedua-dua hujung (hujung 3 dan 5 dengan 3-5, atau 3 dan 3 "
                "dengan 3-4), pemain memilih hujungnya.",
            ],
        ),
        (
            "5. Tamat tangan",
            [
                "• Domino: satu tempat bermain batu terakhirnya. Pasukannya memenangi tangan.",
                "• Buntu: empat pas berturut-turut. Setiap tempat mengira mata baki tangannya; "
                "kiraan individu terendah menang untuk pasukannya (mata pasangan tidak dijumlahkan). "
                "Jika tempat dari kedua-dua pasukan berkongsi kiraan terendah, tangan itu seri.",
                "Pada akhir setiap tangan keempat-empat tangan didedahkan — tidak pernah sebelum itu.",
            ],
        ),
        (
            "6. Pemarkahan",
            [
                "Perlawanan menyimpan asas: biasanya 1, dan 2 bagi kemenangan pertama selepas seri. "
                "Seri berturut-turut tidak menaikkannya melebihi 2. Sebarang kemenangan "
                "mengembalikannya ke 1.",
                "Kemenangan secara buntu, atau domino dengan batu terakhir biasa, mendapat asas.",
                "Dékabès: tangan dimenangi secara domino, batu terakhir bukan kembar, dan sebelum "
                "dimainkan ia boleh disambung secara sah pada setiap satu daripada dua hujung "
                "terbuka — termasuk apabila kedua-dua hujung bernombor sama. Nilainya dua kali asas: "
                "2, atau 4 selepas seri. Tiada syarat lain (tanpa hujung keras). Kembar tidak pernah "
                "menjadi Dékabès.",
                "Pasukan pemenang menambah mata; mata pasukan lawan kembali ke 0. Seri tidak menukar "
                "mata sesiapa.",
                "Pasukan pertama yang mencapai 4 mata atau lebih memenangi perlawanan.",
            ],
        ),
        (
            "7. Aturan meja",
            [
                "• Pilihan kejohanan tanpa isyarat: tiada gerak isyarat, tiada mesej kepada pasangan.",
                "• Privasi: tiada siapa melihat batu tempat lain, kocokan atau agihan akan datang "
                "sehingga tangan tamat. Komputer dan petunjuk hanya tahu apa yang tempat itu tahu: "
                "tangan sendiri, barisan, batu yang dimainkan, bilangan batu dan pas.",
                "• Memilih batu dan meminta petunjuk hanya pratonton langkah. Tiada apa dimainkan "
                "sehingga anda mengesahkan.",
                "• Membuka peraturan atau rekod menjeda komputer sehingga ditutup.",
                "• Undur menarik balik tindakan manusia terakhir bersama balasan komputer selepasnya; "
                "Ulang memulihkan tindakan yang sama tepat. Tindakan baharu selepas undur membuang apa "
                "yang boleh diulang.",
                "• Mula semula memainkan semula tangan semasa dari mula: agihan yang sama (termasuk "
                "agihan semula yang diterima), dengan mata dan asas ketika tangan bermula.",
                "• Permainan baharu memulakan perlawanan baharu: mata 0, asas 1, agihan baharu, 6-6 "
                "membuka.",
                "• Tiada pemasa, pertaruhan atau hukuman fizikal.",
            ],
        ),
        (
            "8. Kawalan",
            [
                "Main terus pada batu dan papan dengan tetikus atau sentuhan: ketik batu untuk melihat "
                "ke mana ia pergi (batu bayang), kemudian ketik hujung atau bayang untuk bermain; atau "
                "seret batu ke hujung.",
                "Bantuan papan kekunci: ←/→ pilih batu, ↑/↓ pilih hujung kiri atau kanan, Enter main, "
                "Esc batal; H petunjuk, U undur, Y ulang, R peraturan, L rekod, G bahasa, M bunyi, "
                "S kelajuan.",
            ],
        ),
        (
            "Contoh",
            [
                "• Hujung 4 dan 6, batu terakhir 4-6 → Dékabès: 2 mata (4 selepas seri).",
                "• Hujung 2 dan 2, batu terakhir 2-5 → Dékabès (nombor sama di kedua-dua hujung dikira).",
                "• Hujung 2 dan 2, batu terakhir 2-2 → menang biasa: asas (kembar tidak dikira).",
                "• Hujung 1 dan 5, batu terakhir 1-3 → muat satu hujung sahaja: asas.",
                "• Buntu dengan 3 / 7 / 3 / 9 (tempat 1–4): pasukan A mendapat asas; tempat 1 mewakili.",
                "• Buntu dengan 5 / 5 / 8 / 9: tempat 1 dan 2 berkongsi minimum → seri: mata tidak "
                "berubah, asas seterusnya 2, pasukan pembuka memilih pembuka seterusnya.",
                "• Mata A 3, B 0; B menang Dékabès selepas seri → B dapat 4, A kembali 0, B menang.",
            ],
        ),
    ],
}
